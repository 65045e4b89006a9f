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

    private static HorizontalPodAutoscaler withCondition(String type, String status, String reason, String message) {
        HorizontalPodAutoscaler hpa = hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "jobs");
        hpa.setStatus(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder()
                .addNewCondition().withType("AbleToScale").withStatus("True").withReason("SucceededGetScale").endCondition()
                .addNewCondition().withType(type).withStatus(status).withReason(reason).withMessage(message).endCondition()
                .build());
        return hpa;
    }

    @Test
    void kedasHpaThatCannotGetItsMetricSaysWhyAndNamesKedasMetricsServer() {
        String why = Autoscaler.notScaling(withCondition("ScalingActive", "False", "FailedGetExternalMetric",
                "the HPA was unable to compute the replica count: unable to get external metric"));
        assertThat(why).isEqualTo("KEDA's HorizontalPodAutoscaler keda-hpa-jobs cannot scale the StatefulSet (ScalingActive"
                + " False, FailedGetExternalMetric: the HPA was unable to compute the replica count: unable to get external"
                + " metric): is KEDA's metrics server (keda-operator-metrics-apiserver) running, and reachable from the API"
                + " server?; the fleet keeps its current size until it can");
        assertThat(Autoscaler.notScaling(withCondition("AbleToScale", "False", "FailedGetScale", "no scale")))
                .contains("AbleToScale False, FailedGetScale: no scale)").doesNotContain("metrics server");
    }

    @Test
    void kedasHpaAtZeroNodesOrScalingOrNotYetReportingIsNotAFault() {
        assertThat(Autoscaler.notScaling(withCondition("ScalingActive", "False", "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero"))).isNull();
        assertThat(Autoscaler.notScaling(withCondition("ScalingActive", "True", "ValidMetricFound", "ok"))).isNull();
        assertThat(Autoscaler.notScaling(hpa("keda-hpa-jobs", Map.of(), "StatefulSet", "jobs"))).isNull();
        assertThat(Autoscaler.notScaling(null)).isNull();
    }
}
