package io.drover.operator.status;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeriesBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kubernetes Events on an ExecutorCluster (events.k8s.io/v1), shown by
 * {@code kubectl describe ec}: what the operator did (created, rolled and why, scaled) and what
 * it saw (degraded with the reason, recovered). A repeat of the same event within
 * {@link #SERIES_WINDOW} updates the first one's series (count, last seen) instead of adding
 * another, as the kubelet's recorder does, so a crash-looping cluster does not flood the
 * namespace. Emitting is best effort: an event that cannot be written never fails a
 * reconciliation.
 */
public final class ClusterEvents {
    private static final Logger LOG = Logger.getLogger(ClusterEvents.class);
    static final Duration SERIES_WINDOW = Duration.ofMinutes(30);
    private static final String CONTROLLER = "drover.io/operator";
    private static final DateTimeFormatter MICRO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    private record Recorded(String namespace, String name, int count, Instant first) {
    }

    private final Map<String, Recorded> recent = new ConcurrentHashMap<>();
    private final String instance = System.getenv().getOrDefault("HOSTNAME", "drover-operator");

    public void normal(KubernetesClient client, ExecutorCluster ec, String reason, String action, String note) {
        emit(client, ec, "Normal", reason, action, note);
    }

    public void warning(KubernetesClient client, ExecutorCluster ec, String reason, String action, String note) {
        emit(client, ec, "Warning", reason, action, note);
    }

    private void emit(KubernetesClient client, ExecutorCluster ec, String type, String reason, String action, String note) {
        String text = note.length() <= 1024 ? note : note.substring(0, 1021) + "...";
        String key = ec.getMetadata().getUid() + "|" + type + "|" + reason + "|" + text;
        Instant now = Instant.now();
        recent.values().removeIf(r -> r.first().plus(SERIES_WINDOW).isBefore(now));
        try {
            Recorded seen = recent.get(key);
            if (seen != null) {
                int count = seen.count() + 1;
                try {
                    client.events().v1().events().inNamespace(seen.namespace()).withName(seen.name())
                            .edit(e -> new EventBuilder(e).withSeries(new EventSeriesBuilder().withCount(count)
                                    .withLastObservedTime(new MicroTime(MICRO.format(now))).build()).build());
                    recent.put(key, new Recorded(seen.namespace(), seen.name(), count, seen.first()));
                    return;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                    // The first one is gone (the API server's event TTL, shorter than the series
                    // window, or deleted): this repeat starts a new one below.
                    recent.remove(key);
                }
            }
            Event created = client.events().v1().events().inNamespace(ec.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(ec.getMetadata().getName() + "-").withNamespace(ec.getMetadata().getNamespace())
                    .endMetadata()
                    .withRegarding(new ObjectReferenceBuilder().withApiVersion(ec.getApiVersion()).withKind(ec.getKind())
                            .withName(ec.getMetadata().getName()).withNamespace(ec.getMetadata().getNamespace())
                            .withUid(ec.getMetadata().getUid()).build())
                    .withType(type).withReason(reason).withAction(action).withNote(text)
                    .withEventTime(new MicroTime(MICRO.format(now)))
                    .withReportingController(CONTROLLER).withReportingInstance(instance)
                    .build()).create();
            recent.put(key, new Recorded(created.getMetadata().getNamespace(), created.getMetadata().getName(), 1, now));
        } catch (RuntimeException e) {
            LOG.debugf(e, "could not record event %s on %s/%s", reason, ec.getMetadata().getNamespace(), ec.getMetadata().getName());
        }
    }
}
