package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A failed request's message in a condition (Degraded, ScaledObjectRefused): the API server's words, not the client's exception text. */
class ApiServerMessagesTest {
    @Test
    void aRefusedWriteIsTheServersMessageWithoutTheRequestAroundIt() {
        String server = "StatefulSet.apps \"jobs\" is invalid: spec.template.spec.containers[0].resources.requests:"
                + " Invalid value: \"16Gi\": must be less than or equal to memory limit of 12Gi";
        KubernetesClientException refused = new KubernetesClientException("Failure executing: PATCH at:"
                + " https://10.0.0.1/apis/apps/v1/namespaces/pay/statefulsets/jobs?fieldManager=drover-operator&force=true."
                + " Message: " + server + ". Received status: Status(apiVersion=v1, code=422, details=...)", 422,
                new StatusBuilder().withCode(422).withMessage(server).build());

        String message = ApiServerMessages.of(new IllegalStateException("wrapped", refused));

        assertThat(message).isEqualTo("the API server refused a request (422): " + server)
                .doesNotContain("https://", "fieldManager", "Received status");
    }

    @Test
    void theWordsOfARefusalAreTheServersOrTheClientsWhenTheServerSentNone() {
        assertThat(ApiServerMessages.words(new KubernetesClientException("denied", 403,
                new StatusBuilder().withCode(403).withMessage("admission webhook denied").build())))
                .isEqualTo("admission webhook denied");
        assertThat(ApiServerMessages.words(new KubernetesClientException("Failure executing: PUT", 400, null)))
                .isEqualTo("Failure executing: PUT");
    }

    @Test
    void anyOtherFailureKeepsItsMessage() {
        assertThat(ApiServerMessages.of(new IllegalStateException("no route to host")))
                .isEqualTo("no route to host");
    }
}
