package io.drover.e2e;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The extremes a fleet reaches while a fault scenario runs: the most pods not ready at once and
 * the fewest replicas its StatefulSet asked for. Informers, not polling: the API server pushes
 * every change, counted here from each event in order (the informer's store may already be
 * ahead of the event being handled, which would skip a short dip), and a watch or list that
 * fails (a slow or restarting API server) is retried by the informer. A polling thread missed
 * dips between samples, and one failed list in it failed the scenario through Awaitility, which
 * fails a wait on any thread's uncaught exception.
 */
final class FleetWatch implements AutoCloseable {
    private final int desired;
    private final Map<String, Boolean> podReady = new ConcurrentHashMap<>();
    private final Map<String, Boolean> podLeaving = new ConcurrentHashMap<>();
    private final AtomicInteger mostUnready = new AtomicInteger();
    private final AtomicInteger mostDisrupted = new AtomicInteger();
    private final AtomicInteger fewestReplicas = new AtomicInteger(Integer.MAX_VALUE);
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<StatefulSet> statefulSet;

    /** Watches the pods and the StatefulSet of ExecutorCluster {@code name}, which should have {@code desired} ready pods. */
    FleetWatch(KubernetesClient client, String ns, String name, int desired) throws Exception {
        this.desired = desired;
        pods = client.pods().inNamespace(ns).withLabel("app.kubernetes.io/instance", name).runnableInformer(0);
        statefulSet = client.apps().statefulSets().inNamespace(ns).withName(name).runnableInformer(0);
        try {
            start(pods, pod -> {
                podReady.put(pod.getMetadata().getName(), ready(pod));
                podLeaving.put(pod.getMetadata().getName(), pod.getMetadata().getDeletionTimestamp() != null);
            }, pod -> {
                podReady.remove(pod.getMetadata().getName());
                podLeaving.remove(pod.getMetadata().getName());
            });
            start(statefulSet, s -> fewestReplicas.accumulateAndGet(Kube.nz(s.getSpec().getReplicas()), Math::min), s -> { });
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private <T extends HasMetadata> void start(SharedIndexInformer<T> informer, Consumer<T> changed, Consumer<T> deleted)
            throws Exception {
        informer.addEventHandler(new ResourceEventHandler<T>() {
            @Override
            public void onAdd(T obj) {
                changed.accept(obj);
                podsCounted();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                changed.accept(newObj);
                podsCounted();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                deleted.accept(obj);
                podsCounted();
            }
        });
        informer.exceptionHandler((started, t) -> true); // keep listing and watching through API errors
        informer.start().toCompletableFuture().get(2, TimeUnit.MINUTES);
    }

    /** After each event: the pods' readiness as the events so far tell it (the StatefulSet's events change nothing here). */
    private void podsCounted() {
        long ready = podReady.values().stream().filter(r -> r).count();
        mostUnready.accumulateAndGet((int) (desired - ready), Math::max);
        long staying = podLeaving.values().stream().filter(leaving -> !leaving).count();
        mostDisrupted.accumulateAndGet((int) (desired - staying), Math::max);
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The most of the {@code desired} pods that were not ready (or did not exist) at one time. */
    int mostUnready() {
        return mostUnready.get();
    }

    /**
     * The most of the {@code desired} pods that were being deleted or gone at one time: what a
     * PodDisruptionBudget bounds. Readiness can also dip for other reasons (a replacement still
     * starting while another pod's probe fails on a loaded machine), which {@link #mostUnready} shows.
     */
    int mostDisrupted() {
        return mostDisrupted.get();
    }

    /** The fewest replicas the StatefulSet's spec asked for. */
    int fewestReplicas() {
        return fewestReplicas.get();
    }

    @Override
    public void close() {
        pods.close();
        statefulSet.close();
    }
}
