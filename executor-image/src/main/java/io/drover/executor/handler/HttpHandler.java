package io.drover.executor.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs the job's payload to a URL; a 2xx answer is success, anything else (or a timeout) a
 * failure that is retried. The URL is the configured one ({@code drover.http.url}), or, when
 * the payload is a JSON object with a {@code "url"} field, that URL, and then the object's
 * {@code "body"} field is what is posted.
 *
 * <p>A URL given in a payload is only followed to a host listed in {@code drover.http.allowedHosts}
 * (or the configured URL's own host); a job this node's settings do not let it send (a host not
 * allowed, no URL at all) is handed back for another node ({@link NotRunnableHere}), not
 * dead-lettered: a rolling change may be adding the host or the URL: whoever can enqueue jobs must not be able to make the
 * executor call any address its network reaches (SSRF). Nothing of the answer is kept but its
 * status: an error message holds the status code, never the body (which could carry what the
 * called service should not reveal, and which the API would show back), and a failed exchange only
 * its kind (the client's message may quote the peer). {@code timeout} bounds
 * the whole exchange, body included (the JDK client's request timeout stops at the headers, so
 * a server that trickles its body would hold the worker).
 */
public final class HttpHandler implements JobHandler {
    public static final String TYPE = "http";
    private static final ObjectMapper JSON = PayloadJson.mapper();

    private final Optional<URI> defaultUrl;
    private final Duration timeout;
    private final List<String> allowedHosts;
    private final HttpClient client;

    /** @param allowedHosts host names ({@code api.example.com}), with a port ({@code host:8443}), or suffixes ({@code *.example.com}) */
    public HttpHandler(Optional<URI> defaultUrl, Duration timeout, List<String> allowedHosts) {
        List<String> problems = settingProblems(defaultUrl.map(URI::toString), timeout, allowedHosts);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        this.defaultUrl = defaultUrl;
        this.timeout = timeout;
        this.allowedHosts = allowedHosts.stream().map(h -> h.trim().toLowerCase(Locale.ROOT)).filter(h -> !h.isEmpty()).toList();
        this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * http.url as configured, once {@link #settingProblems} found nothing wrong with it. It is read
     * as text, not as a URI by the configuration: a URL that does not parse failed the mapping,
     * whose message quoted it whole (a secret in its query with it) in the log and the pod's
     * termination message.
     */
    public static Optional<URI> configuredUrl(Optional<String> url) {
        return url.map(URI::create);
    }

    /**
     * What is wrong with the http settings, in the settings' names (SettingsFactory refuses a node
     * with them): a URL without a scheme ({@code hooks.internal:8080}) parses as one with scheme
     * "hooks.internal" and no host, and every http job failed on it until dead-lettered, while
     * the node looked healthy; an allowedHosts entry that can match no URL (a scheme, a path, a
     * bare IPv6 address) had every job for that host handed back until dead-lettered. The URL is
     * not quoted: it may carry a secret.
     */
    public static List<String> settingProblems(Optional<String> url, Duration timeout, List<String> allowedHosts) {
        List<String> problems = new java.util.ArrayList<>();
        url.ifPresent(text -> {
            URI u;
            try {
                u = new URI(text);
            } catch (java.net.URISyntaxException e) {
                problems.add("http.url is not a valid URL (" + whereNotWhat(e) + ")");
                return;
            }
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null || !validPort(u)) {
                problems.add("http.url must be an http or https URL with a host (and a port from 1 to 65535), e.g."
                        + " http://hooks.internal:8080/jobs; got " + (u.getScheme() == null ? "no scheme"
                        : "scheme " + SleepHandler.abbreviate(u.getScheme())) + (u.getHost() == null ? " and no host" : ""));
            }
        });
        // As every duration setting: the exchange waits timeout.toMillis(), and less than 1ms is none.
        io.drover.contract.SettingChecks.between(problems, "http.timeout", timeout, io.drover.contract.SettingLimits.MIN_DURATION, null);
        // Named by position, not quoted: the mistake this finds is often a URL pasted whole, a
        // token or password in it.
        for (int i = 0; i < allowedHosts.size(); i++) {
            String reason = hostEntryProblem(allowedHosts.get(i).trim());
            if (reason != null) {
                problems.add("http.allowedHosts entry " + (i + 1) + " of " + allowedHosts.size() + " " + reason
                        + "; entries are host, host:port, *.suffix or [IPv6], e.g. hooks.internal:8443");
            }
        }
        return problems;
    }

    /** Why an allowedHosts entry can match no URL's host and port; null when it can. */
    private static String hostEntryProblem(String entry) {
        if (entry.isEmpty()) {
            return null; // skipped (a trailing comma)
        }
        if (entry.contains("/") || entry.contains("@") || entry.chars().anyMatch(Character::isWhitespace)) {
            return "is not a host (no scheme, path, user or spaces)";
        }
        int colon = entry.lastIndexOf(':');
        String host = entry;
        if (colon >= 0 && !entry.endsWith("]")) {
            host = entry.substring(0, colon);
            String port = entry.substring(colon + 1);
            // As a URL's port is compared (its number): 08443 would never match.
            if (!port.matches("[1-9][0-9]{0,4}") || Integer.parseInt(port) > 65535) {
                return "has a port that is not a number from 1 to 65535";
            }
        }
        if (host.startsWith("[") != host.endsWith("]") || !host.startsWith("[") && host.contains(":")) {
            return "is an IPv6 address without its brackets";
        }
        if (host.isEmpty() || host.equals("*.") || host.indexOf('*') > 0 || host.startsWith("*") && !host.startsWith("*.")) {
            return "has no host, or a * that is not the start of *.suffix";
        }
        return null;
    }

    private static boolean validPort(URI u) {
        return u.getPort() == -1 || u.getPort() >= 1 && u.getPort() <= 65535;
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** Where to send and what. */
    record Request(URI url, String body) {
    }

    @Override
    public void execute(JobContext job) throws Exception {
        Request request = request(job.payload());
        CompletableFuture<HttpResponse<Void>> exchange = client.sendAsync(HttpRequest.newBuilder(request.url())
                        .timeout(timeout)
                        .header("Content-Type", "application/json")
                        .header("X-Drover-Job-Id", Long.toString(job.id()))
                        .header("X-Drover-Attempt", Integer.toString(job.attempt()))
                        .POST(HttpRequest.BodyPublishers.ofString(request.body()))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        HttpResponse<Void> response;
        try {
            response = exchange.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw timedOut(request);
        } catch (InterruptedException e) {
            exchange.cancel(true); // jobTimeout or shutdown: abort the exchange, free the connection
            throw e;
        } catch (ExecutionException e) {
            // Only the kind of failure goes with the job, never the client's message nor its cause:
            // the job's last error and dead letter are read back through the API, and the message
            // may quote what the peer sent (a server of another protocol: "Invalid status line:
            // \"SSH-2.0-OpenSSH_9.6\"", a header's value), where nothing of an answer but its
            // status may be kept.
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof HttpTimeoutException && !(cause instanceof java.net.http.HttpConnectTimeoutException)) {
                // The client's own request timeout (same length, it stops at the headers) can fire
                // before ours: one kind of failure, one message, whichever clock ran out first.
                // Not a connect timeout: that is "could not connect", said as its kind below.
                throw timedOut(request);
            }
            throw new java.io.IOException("POST " + origin(request.url()) + " failed: " + cause.getClass().getSimpleName());
        }
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("POST " + origin(request.url()) + " answered " + response.statusCode());
        }
    }

    private HttpTimeoutException timedOut(Request request) {
        return new HttpTimeoutException("POST " + origin(request.url()) + " got no complete answer within " + timeout);
    }

    /**
     * Scheme, host and port of a URL, for errors: they are kept in the job's last error and dead
     * letter, which a read-only token may read, and a webhook URL often carries its secret in its
     * path or query (a Slack or Teams hook).
     */
    static String origin(URI url) {
        return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort()) + "/...";
    }

    Request request(String payload) throws InvalidPayloadException, NotRunnableHere {
        String body = payload == null ? "" : payload;
        if (body.trim().startsWith("{")) {
            JsonNode node;
            try {
                node = JSON.readTree(body);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // Where, not what: the parser's message quotes the payload's text (a token, a URL).
                var at = e.getLocation();
                throw new InvalidPayloadException("http payload looks like JSON but does not parse"
                        + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
            }
            if (node.hasNonNull("url")) {
                URI url = parse(node.get("url").asText());
                if (!allowed(url)) {
                    // This node's settings: a rolling change may be adding the host (another node's may allow it).
                    throw new NotRunnableHere("http job url host '" + url.getHost() + "' is not in"
                            + " http.allowedHosts (nor the origin of http.url: its scheme, host and port)");
                }
                JsonNode inner = node.get("body");
                String innerBody = inner == null ? "" : inner.isTextual() ? inner.asText() : inner.toString();
                return new Request(url, innerBody);
            }
        }
        URI url = defaultUrl.orElseThrow(() -> new NotRunnableHere(
                "http job has no URL: this node has no http.url, and the payload no \"url\" field"));
        return new Request(url, body);
    }

    /** For tests: whether a payload may send to this URL. */
    boolean allowedUrl(String url) {
        return allowed(URI.create(url));
    }

    private boolean allowed(URI url) {
        String host = url.getHost() == null ? "" : url.getHost().toLowerCase(Locale.ROOT);
        int port = port(url);
        // The configured URL allows its own origin (scheme, host and port), not every port of its
        // host: hooks.internal:8080 does not open hooks.internal:6379.
        if (defaultUrl.isPresent() && host.equals(defaultUrl.get().getHost().toLowerCase(Locale.ROOT))
                && port == port(defaultUrl.get()) && url.getScheme().equalsIgnoreCase(defaultUrl.get().getScheme())) {
            return true;
        }
        for (String entry : allowedHosts) {
            int colon = entry.lastIndexOf(':');
            String h = colon > 0 && !entry.endsWith("]") ? entry.substring(0, colon) : entry;
            if (colon > 0 && !entry.endsWith("]") && !entry.substring(colon + 1).equals(Integer.toString(port))) {
                continue;
            }
            if (h.startsWith("*.") ? host.endsWith(h.substring(1)) : host.equals(h)) {
                return true;
            }
        }
        return false;
    }

    private static int port(URI url) {
        return url.getPort() != -1 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    /**
     * The payload's URL. The reasons it is refused do not quote it: the payload holds it already,
     * and a URL can carry a secret (a token in its query or user part) that the log need not.
     */
    private static URI parse(String url) throws InvalidPayloadException {
        try {
            URI uri = new URI(url);
            // Schemes are case-insensitive (HTTP://host is http://host).
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw new InvalidPayloadException("http job url must be http or https, got "
                        + (uri.getScheme() == null ? "no scheme" : "scheme " + SleepHandler.abbreviate(uri.getScheme())));
            }
            if (uri.getHost() == null) {
                throw new InvalidPayloadException("http job url has no host");
            }
            if (!validPort(uri)) { // the client refused it (or could not connect) at every attempt, a retried failure
                throw new InvalidPayloadException("http job url port must be between 1 and 65535, got " + uri.getPort());
            }
            return uri;
        } catch (java.net.URISyntaxException e) {
            // Not the exception as the cause: its message quotes the whole input, and the stored
            // error carries the causes' messages (JobRunner.describe).
            throw new InvalidPayloadException("http job url is not a valid URI (" + whereNotWhat(e) + ")");
        }
    }

    /** Why a URL does not parse and where, without the URL (its exception's message quotes it whole). */
    private static String whereNotWhat(java.net.URISyntaxException e) {
        return e.getReason() + (e.getIndex() < 0 ? "" : " at character " + e.getIndex());
    }
}
