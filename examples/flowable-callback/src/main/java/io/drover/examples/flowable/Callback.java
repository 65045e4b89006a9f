package io.drover.examples.flowable;

import org.flowable.engine.delegate.DelegateExecution;
import org.flowable.engine.delegate.JavaDelegate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Tells a receiver when its job starts and when it finishes, around an optional sleep: POST
 * {@code <callbackUrl>/start} and {@code /finish} with the process instance id, the node (its
 * HOSTNAME), the attempt and a token of this JVM, the protocol of the e2e suite's ExecutionReceiver. Process
 * variables: {@code callbackUrl} (required), {@code ms} (sleep, default 0).
 */
public class Callback implements JavaDelegate {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** This JVM: a restarted container reports under the same HOSTNAME. */
    private static final String JVM = java.util.UUID.randomUUID().toString().substring(0, 8);

    @Override
    public void execute(DelegateExecution execution) {
        String url = (String) execution.getVariable("callbackUrl");
        Object ms = execution.getVariable("ms");
        String query = "?job=" + execution.getProcessInstanceId() + "&node=" + System.getenv().getOrDefault("HOSTNAME", "local")
                + "&attempt=1&jvm=" + JVM;
        post(url + "/start" + query);
        if (ms instanceof Number n && n.longValue() > 0) {
            try {
                Thread.sleep(n.longValue());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        post(url + "/finish" + query);
    }

    private static void post(String url) {
        try {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() >= 300) {
                throw new IllegalStateException(url + " answered " + r.statusCode());
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("POST " + url + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
