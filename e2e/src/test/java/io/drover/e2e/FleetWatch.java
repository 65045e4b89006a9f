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
 * The extremes a fleet reaches while a fault scenario runs: the most of its pods not ready at
 * once, the most being deleted or gone at once, and the fewest replicas its StatefulSet asked
 * for. Informers, not polling: the API server pushes every change, counted here from each event
 * in order (the informer's store may already be ahead of the event being handled, which would
 * skip a short dip), and a watch or list that fails (a slow or restarting API server) is retried
 * by the informer. A polling thread missed dips between samples, and one failed list in it
 * failed the scenario through Awaitility, which fails a wait on any thread's uncaught exception.
 *
 * <p>A StatefulSet's pods keep their names, so the fleet is followed per name: each name's
 * state is that of its latest pod, and a name whose pod was deleted stays counted as gone until
 * its replacement is added. Counting pods present against the desired number instead saw two of
 * three pods "gone" while the informer delivered its initial list one add at a time (CI at
 * d784d3e failed the eviction scenario on exactly that).
 */
final class FleetWatch implements AutoCloseable {
    /** One pod name's latest state: its pod ready, being deleted (or gone), and whether it was ready when its deletion began. */
    private record PodState(boolean ready, boolean leaving, boolean readyWhenLeft) {
        static final PodState GONE = new PodState(false, true, false);
    }

    private final Map<String, PodState> podStates = new ConcurrentHashMap<>();
    private final AtomicInteger mostUnready = new AtomicInteger();
    private final AtomicInteger mostDisrupted = new AtomicInteger();
    private final AtomicInteger mostHealthyDisrupted = new AtomicInteger();
    private final AtomicInteger fewestReplicas = new AtomicInteger(Integer.MAX_VALUE);
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<StatefulSet> statefulSet;

    /** Watches the pods and the StatefulSet of ExecutorCluster {@code name}. */
    FleetWatch(KubernetesClient client, String ns, String name) throws Exception {
        pods = client.pods().inNamespace(ns).withLabel("app.kubernetes.io/instance", name).runnableInformer(0);
        statefulSet = client.apps().statefulSets().inNamespace(ns).withName(name).runnableInformer(0);
        try {
            start(pods, pod -> podStates.merge(pod.getMetadata().getName(), stateOf(pod), FleetWatch::next),
                    pod -> podStates.merge(pod.getMetadata().getName(), PodState.GONE, FleetWatch::next));
            start(statefulSet, s -> fewestReplicas.accumulateAndGet(Kube.nz(s.getSpec().getReplicas()), Math::min), s -> { });
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private static PodState stateOf(Pod pod) {
        boolean ready = ready(pod);
        boolean leaving = pod.getMetadata().getDeletionTimestamp() != null;
        return new PodState(ready, leaving, leaving && ready);
    }

    /**
     * A name's state after an event. When a deletion begins (an eviction sets the deletion
     * timestamp and nothing else), the pod's readiness just before it is kept until a replacement
     * arrives: the kubelet marks a terminating pod unready moments later.
     */
    private static PodState next(PodState before, PodState now) {
        if (!now.leaving()) {
            return now;
        }
        return new PodState(now.ready(), true, before.leaving() ? before.readyWhenLeft() : before.ready());
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

    /** After each event: the pods' states as the events so far tell them (the StatefulSet's events change nothing here). */
    private void podsCounted() {
        int unready = 0;
        int disrupted = 0;
        int healthyDisrupted = 0;
        for (PodState s : podStates.values()) {
            unready += s.ready() && !s.leaving() ? 0 : 1;
            disrupted += s.leaving() ? 1 : 0;
            healthyDisrupted += s.readyWhenLeft() ? 1 : 0;
        }
        mostUnready.accumulateAndGet(unready, Math::max);
        mostDisrupted.accumulateAndGet(disrupted, Math::max);
        mostHealthyDisrupted.accumulateAndGet(healthyDisrupted, Math::max);
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The most pods that were not ready, being deleted or gone (not yet replaced) at one time. */
    int mostUnready() {
        return mostUnready.get();
    }

    /** The most pods that were being deleted or gone (not yet replaced) at one time, whatever their readiness. */
    int mostDisrupted() {
        return mostDisrupted.get();
    }

    /**
     * The most pods being deleted or gone at one time that were ready when their deletion began:
     * what a PodDisruptionBudget bounds. Kubernetes may also evict a pod that is not ready (the
     * default unhealthyPodEvictionPolicy, IfHealthyBudget, lets it when the budget's last status
     * counts enough healthy pods), which {@link #mostDisrupted} shows.
     */
    int mostHealthyDisrupted() {
        return mostHealthyDisrupted.get();
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
