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
}
