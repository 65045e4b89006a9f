package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which HorizontalPodAutoscaler is KEDA's for a cluster: the one the Disabling state waits for. */
class AutoscalerTest {
    private static final ExecutorCluster EC = Clusters.parse(Clusters.yaml("jobs", ""));

    private static HorizontalPodAutoscaler hpa(String name, Map<String, String> labels, String kind, String target) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind(kind).withName(target).endScaleTargetRef()
                .withMaxReplicas(3).endSpec().build();
    }

    @Test
    void kedasHpaIsKnownByItsNameOrLabel() {
        assertThat(Autoscaler.kedasFor(hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "jobs"), EC)).isTrue();
        assertThat(Autoscaler.kedasFor(hpa("renamed", Map.of("scaledobject.keda.sh/name", "jobs"), "StatefulSet", "jobs"), EC)).isTrue();
    }

    @Test
    void aUsersOwnHpaOnTheStatefulSetIsNotKedas() {
        assertThat(Autoscaler.kedasFor(hpa("mine", Map.of(), "StatefulSet", "jobs"), EC))
                .as("else the cluster stays Disabling, at its size, for good").isFalse();
        assertThat(Autoscaler.kedasFor(hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "other"), EC)).isFalse();
        assertThat(Autoscaler.kedasFor(hpa("keda-hpa-jobs", Map.of(), "Deployment", "jobs"), EC)).isFalse();
    }

    private static final java.time.Instant NOW = java.time.Instant.parse("2026-11-29T08:00:00Z");

    private static HorizontalPodAutoscaler withCondition(String type, String status, String reason, String message) {
        return withCondition(type, status, reason, message, NOW.minusSeconds(61));
    }

    private static HorizontalPodAutoscaler withCondition(String type, String status, String reason, String message,
                                                         java.time.Instant since) {
        HorizontalPodAutoscaler hpa = hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "jobs");
        hpa.setStatus(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder()
                .addNewCondition().withType("AbleToScale").withStatus("True").withReason("SucceededGetScale").endCondition()
                .addNewCondition().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastTransitionTime(since.toString()).endCondition()
                .build());
        return hpa;
    }

    private static String notScaling(java.time.Instant now, HorizontalPodAutoscaler hpa) {
        return Autoscaler.notScaling(hpa, now);
    }

    @Test
    void kedasHpaThatCannotGetItsMetricSaysWhyAndNamesKedasMetricsServer() {
        String why = notScaling(NOW, withCondition("ScalingActive", "False", "FailedGetExternalMetric",
                "the HPA was unable to compute the replica count: unable to get external metric"));
        assertThat(why).isEqualTo("KEDA's HorizontalPodAutoscaler keda-hpa-jobs cannot scale the StatefulSet (ScalingActive"
                + " False, FailedGetExternalMetric: the HPA was unable to compute the replica count: unable to get external"
                + " metric): is KEDA's metrics server (keda-operator-metrics-apiserver) running, and reachable from the API"
                + " server?; the fleet keeps its current size until it can");
        assertThat(notScaling(NOW, withCondition("AbleToScale", "False", "FailedGetScale", "no scale")))
                .contains("AbleToScale False, FailedGetScale: no scale)").doesNotContain("metrics server");
    }

    @Test
    void kedasHpaAtZeroNodesOrScalingOrNotYetReportingIsNotAFault() {
        assertThat(notScaling(NOW, withCondition("ScalingActive", "False", "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero"))).isNull();
        assertThat(notScaling(NOW, withCondition("ScalingActive", "True", "ValidMetricFound", "ok"))).isNull();
        assertThat(notScaling(NOW, hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "jobs"))).isNull();
        assertThat(notScaling(NOW, null)).isNull();
        assertThat(notScaling(NOW, withCondition("ScalingActive", "False", "FailedGetExternalMetric", "not yet",
                NOW.minusSeconds(59)))).as("a failed read of the metric within a minute: answered at the HPA's next sync").isNull();
    }
}
