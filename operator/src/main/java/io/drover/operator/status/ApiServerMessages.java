package io.drover.operator.status;

import io.drover.contract.Causes;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failed request to the API server tells the user in a condition: the server's own
 * message when it refused a write (e.g. {@code StatefulSet.apps "jobs" is invalid:
 * spec.template...: must be less than or equal to memory limit}), not the client's exception text
 * around it (the request's URL, its field manager, the Status object printed whole). One home
 * for the reconciler's Degraded message and the autoscaler's ScaledObjectRefused.
 */
public final class ApiServerMessages {
    private ApiServerMessages() {
    }

    /** The first refusal in the cause chain in the server's words, with its code; else the failure's own message. */
    public static String of(Throwable e) {
        for (Throwable t : Causes.chain(e)) {
            if (t instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
                return "the API server refused a request (" + k.getCode() + "): " + k.getStatus().getMessage();
            }
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** The server's message of this refusal, or the client's when the server sent none. */
    public static String words(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
    }
}
