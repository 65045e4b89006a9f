package io.drover.e2e;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The extremes a fleet reaches while a fault scenario runs: the most pods not ready at once and
 * the fewest replicas its StatefulSet asked for. Informers, not polling: the API server pushes
 * every change, and a watch that breaks (a slow or restarting API server) is re-listed by the
 * informer. A polling thread missed short dips between samples, and one failed list in it failed
 * the scenario through Awaitility, which fails a wait on any thread's uncaught exception.
 */
final class FleetWatch implements AutoCloseable {
    private final int desired;
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<StatefulSet> statefulSet;
    private final AtomicInteger mostUnready = new AtomicInteger();
    private final AtomicInteger fewestReplicas = new AtomicInteger(Integer.MAX_VALUE);

    /** Starts watching the pods and the StatefulSet of ExecutorCluster {@code name}, which should have {@code desired} ready pods. */
    FleetWatch(KubernetesClient client, String ns, String name, int desired) {
        this.desired = desired;
        // Assigned before they run: their handlers read the stores through these fields.
        pods = client.pods().inNamespace(ns).withLabel("app.kubernetes.io/instance", name).runnableInformer(0);
        statefulSet = client.apps().statefulSets().inNamespace(ns).withName(name).runnableInformer(0);
        pods.addEventHandler(onChange(this::podsChanged));
        statefulSet.addEventHandler(onChange(this::statefulSetChanged));
        pods.run();
        statefulSet.run();
    }

    private void podsChanged() {
        long ready = pods.getStore().list().stream().filter(FleetWatch::ready).count();
        mostUnready.accumulateAndGet((int) (desired - ready), Math::max);
    }

    private void statefulSetChanged() {
        statefulSet.getStore().list().forEach(s -> fewestReplicas.accumulateAndGet(Kube.nz(s.getSpec().getReplicas()), Math::min));
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The most of the {@code desired} pods that were not ready (or did not exist) at one time. */
    int mostUnready() {
        return mostUnready.get();
    }

    /** The fewest replicas the StatefulSet's spec asked for. */
    int fewestReplicas() {
        return fewestReplicas.get();
    }

    private static <T extends HasMetadata> ResourceEventHandler<T> onChange(Runnable changed) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                changed.run();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                changed.run();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                changed.run();
            }
        };
    }

    @Override
    public void close() {
        pods.close();
        statefulSet.close();
    }
}
