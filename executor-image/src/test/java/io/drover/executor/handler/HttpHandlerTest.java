package io.drover.executor.handler;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** The http handler against a real local HTTP server. */
class HttpHandlerTest {
    private HttpServer server;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private String base;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/ok", exchange -> {
            received.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)
                    + " job=" + exchange.getRequestHeaders().getFirst("X-Drover-Job-Id"));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.createContext("/broken", exchange -> {
            byte[] body = "downstream exploded".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/slow", exchange -> {
            try {
                Thread.sleep(2000);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.createContext("/trickle", exchange -> {
            // Headers at once, then a byte every 100 ms for 5 s: the request timeout stops at the headers.
            exchange.sendResponseHeaders(200, 50);
            try (var out = exchange.getResponseBody()) {
                for (int i = 0; i < 50; i++) {
                    out.write('x');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (InterruptedException | IOException ignored) {
                // the client went away
            }
            exchange.close();
        });
        server.createContext("/huge", exchange -> {
            // 50 MB of error body: only the start of it is read.
            exchange.sendResponseHeaders(503, 0);
            try (var out = exchange.getResponseBody()) {
                byte[] chunk = new byte[1 << 20];
                java.util.Arrays.fill(chunk, (byte) 'e');
                for (int i = 0; i < 50; i++) {
                    out.write(chunk);
                }
            } catch (IOException ignored) {
                // the client stopped reading, as it should
            }
            exchange.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private static JobContext job(String payload) {
        return new JobContext(42, "http", payload, 1, 3, Instant.now());
    }

    @Test
    void postsThePayloadToTheConfiguredUrl() throws Exception {
        new HttpHandler(Optional.of(URI.create(base + "/ok")), Duration.ofSeconds(5), List.of()).execute(job("{\"order\":7}"));
        assertThat(received).containsExactly("{\"order\":7} job=42");
    }

    @Test
    void postsTheBodyToAPerJobUrl() throws Exception {
        new HttpHandler(Optional.empty(), Duration.ofSeconds(5), List.of("127.0.0.1"))
                .execute(job("{\"url\":\"" + base + "/ok\",\"body\":{\"order\":8}}"));
        assertThat(received).containsExactly("{\"order\":8} job=42");
    }

    @Test
    void aPerJobUrlToAHostNotAllowedIsRefusedWithoutCallingIt() {
        // Whoever can enqueue must not make the executor call any address it reaches (SSRF).
        HttpHandler handler = new HttpHandler(Optional.empty(), Duration.ofSeconds(5), List.of("api.example.com", "*.internal.example"));
        // This node's settings, not the payload's fault: handed back for another node (a rolling
        // change may be adding the host), never dead-lettered unrun at once.
        assertThatThrownBy(() -> handler.execute(job("{\"url\":\"" + base + "/ok\"}")))
                .isInstanceOf(NotRunnableHere.class)
                .hasMessageContaining("'127.0.0.1' is not in http.allowedHosts");
        assertThatThrownBy(() -> handler.execute(job("{\"url\":\"http://169.254.169.254/latest/meta-data/\"}")))
                .isInstanceOf(NotRunnableHere.class);
        assertThat(received).isEmpty();
        // A port in the entry must match; a suffix entry matches sub-domains only.
        assertThat(new HttpHandler(Optional.empty(), Duration.ofSeconds(1), List.of("127.0.0.1:1")).allowedUrl(base + "/ok")).isFalse();
        assertThat(handler.allowedUrl("https://a.internal.example/x")).isTrue();
        assertThat(handler.allowedUrl("https://internal.example.attacker.net/x")).isFalse();
        assertThat(handler.allowedUrl("https://api.example.com:443/x")).isTrue();
    }

    @Test
    void thePayloadMayNameTheConfiguredUrlsOrigin() throws Exception {
        HttpHandler handler = new HttpHandler(Optional.of(URI.create(base + "/broken")), Duration.ofSeconds(5), List.of());
        handler.execute(job("{\"url\":\"" + base + "/ok\",\"body\":1}"));
        assertThat(received).containsExactly("1 job=42");
        // Its origin only: another port or scheme of that host is not opened by it.
        HttpHandler hooks = new HttpHandler(Optional.of(URI.create("http://hooks.internal:8080/in")), Duration.ofSeconds(5), List.of());
        assertThat(hooks.allowedUrl("http://hooks.internal:8080/other")).isTrue();
        assertThat(hooks.allowedUrl("http://HOOKS.internal:8080/other")).isTrue();
        assertThat(hooks.allowedUrl("http://hooks.internal:6379/")).isFalse();
        assertThat(hooks.allowedUrl("http://hooks.internal/")).isFalse();
        assertThat(hooks.allowedUrl("https://hooks.internal:8080/")).isFalse();
        assertThat(new HttpHandler(Optional.of(URI.create("https://hooks.example")), Duration.ofSeconds(5), List.of())
                .allowedUrl("https://hooks.example:443/x")).as("the scheme's port, written or not").isTrue();
    }

    /** A refused URL is not quoted in the reason (the dead letter's payload holds it already; logs need not). */
    @Test
    void aRefusedUrlIsNotQuoted() {
        HttpHandler handler = new HttpHandler(Optional.empty(), Duration.ofSeconds(5), List.of("api.example.com"));
        for (String url : List.of("ftp://user:s3cret@api.example.com/x", "//api.example.com/x?token=s3cret",
                "http://api.example.com/x y?token=s3cret", "https:///x?token=s3cret")) {
            assertThatThrownBy(() -> handler.execute(job("{\"url\":\"" + url + "\"}"))).as(url)
                    .isInstanceOf(InvalidPayloadException.class)
                    // The stored error is the exception with its causes (JobRunner.describe), not its message alone.
                    .satisfies(e -> assertThat(withCauses(e)).doesNotContain("s3cret"));
        }
        assertThatThrownBy(() -> handler.execute(job("{\"url\": s3cret}"))).isInstanceOf(InvalidPayloadException.class)
                .satisfies(e -> assertThat(withCauses(e)).doesNotContain("s3cret"))
                .hasMessage("http payload looks like JSON but does not parse (line 1, column 9)");
        assertThat(received).isEmpty();
    }

    @Test
    void non2xxIsARetryableFailureNamingTheStatus() {
        HttpHandler handler = new HttpHandler(Optional.of(URI.create(base + "/broken")), Duration.ofSeconds(5), List.of());
        assertThatThrownBy(() -> handler.execute(job("{}")))
                .isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(PermanentJobFailure.class)
                .hasMessageEndingWith("answered 500")
                // Nor the URL's path: a webhook's secret is often in it, and read-only tokens read errors.
                .hasMessageNotContaining("/broken")
                // The body is never repeated: it could reveal what the called service keeps, and the API shows errors.
                .message().doesNotContain("downstream exploded");
    }

    /**
     * A peer that is no HTTP server (an SSH or SMTP banner, another protocol's reply): the client's
     * error quotes the line it got, and the job's error is read back through the API. Only the
     * kind of failure is kept.
     */
    @Test
    void whatAPeerOfAnotherProtocolSentIsNotKept() throws Exception {
        for (String answer : List.of("SECRET-BANNER-42 ready\r\n", "SSH-2.0-SECRET-BANNER-42\r\n")) {
            try (java.net.ServerSocket peer = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                Thread.ofVirtual().start(() -> {
                    try (java.net.Socket s = peer.accept()) {
                        s.getInputStream().read(new byte[1024]);
                        s.getOutputStream().write(answer.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                        Thread.sleep(500);
                    } catch (Exception ignored) {
                        // the test's peer: whatever the client did is the test's subject
                    }
                });
                HttpHandler handler = new HttpHandler(Optional.of(URI.create("http://127.0.0.1:" + peer.getLocalPort() + "/x")),
                        Duration.ofSeconds(5), List.of());
                Throwable thrown = catchThrowable(() -> handler.execute(job("{}")));
                assertThat(thrown).as("the exchange with " + answer.strip()).isNotNull();
                java.io.StringWriter kept = new java.io.StringWriter();
                thrown.printStackTrace(new java.io.PrintWriter(kept));
                assertThat(kept.toString()).as("what a job's error keeps (its stack trace, causes included)")
                        .doesNotContain("SECRET-BANNER").contains("POST http://127.0.0.1:" + peer.getLocalPort() + "/... failed:");
            }
        }
    }

    @Test
    void aSlowServerTimesOut() {
        HttpHandler handler = new HttpHandler(Optional.of(URI.create(base + "/slow")), Duration.ofMillis(300), List.of());
        // Whichever clock runs out first (the client's request timeout at the headers, or the
        // handler's over the whole exchange), the job's error is the same.
        assertThatThrownBy(() -> handler.execute(job("{}"))).isInstanceOf(HttpTimeoutException.class)
                .hasMessage("POST " + base + "/... got no complete answer within PT0.3S");
    }

    @Test
    void aBodyTrickledSlowlyTimesOutToo() {
        HttpHandler handler = new HttpHandler(Optional.of(URI.create(base + "/trickle")), Duration.ofMillis(500), List.of());
        long start = System.nanoTime();
        assertThatThrownBy(() -> handler.execute(job("{}"))).isInstanceOf(HttpTimeoutException.class)
                .hasMessageContaining("got no complete answer within PT0.5S");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void aHugeAnswerIsDiscardedNotKept() {
        HttpHandler handler = new HttpHandler(Optional.of(URI.create(base + "/huge")), Duration.ofSeconds(10), List.of());
        assertThatThrownBy(() -> handler.execute(job("{}"))).isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("answered 503");
    }

    @Test
    void noUrlIsHandedBackAndABadUrlIsAnInvalidPayload() {
        HttpHandler handler = new HttpHandler(Optional.empty(), Duration.ofSeconds(1), List.of());
        assertThatThrownBy(() -> handler.execute(job("{\"order\":1}"))).isInstanceOf(NotRunnableHere.class)
                .hasMessageContaining("no URL");
        assertThatThrownBy(() -> handler.execute(job("{\"url\":\"ftp://x\"}"))).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("http or https").hasMessageEndingWith("got scheme 'ftp'");
        // Out of range, the client refused it at every attempt: retried until dead-lettered.
        assertThatThrownBy(() -> handler.execute(job("{\"url\":\"http://localhost:70000/\"}")))
                .isInstanceOf(InvalidPayloadException.class).hasMessage("http job url port must be between 1 and 65535, got 70000");
        // Port 0: no connection is ever made to it, a failure retried until dead-lettered.
        assertThatThrownBy(() -> handler.execute(job("{\"url\":\"http://localhost:0/\"}")))
                .isInstanceOf(InvalidPayloadException.class).hasMessage("http job url port must be between 1 and 65535, got 0");
        assertThatThrownBy(() -> handler.execute(job("{\"url\": "))).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("does not parse");
    }

    /** A payload of several JSON values (NDJSON) for the configured URL is posted as it is. */
    @Test
    void aPayloadOfSeveralJsonValuesIsPostedAsItIs() throws Exception {
        new HttpHandler(Optional.of(URI.create(base + "/ok")), Duration.ofSeconds(5), List.of())
                .execute(job("{\"a\":1}\n{\"b\":2}"));
        assertThat(received).containsExactly("{\"a\":1}\n{\"b\":2} job=42");
    }

    /** Schemes are case-insensitive: HTTP://host is http://host, not a refused scheme. */
    @Test
    void anUppercaseSchemeIsTheSameScheme() throws Exception {
        new HttpHandler(Optional.empty(), Duration.ofSeconds(5), List.of("127.0.0.1"))
                .execute(job("{\"url\":\"" + base.toString().replace("http://", "HTTP://") + "/ok\",\"body\":3}"));
        assertThat(received).containsExactly("3 job=42");
    }

    /** Settings it cannot work with are refused at start-up, naming them (SettingsFactory reports every one). */
    @Test
    void settingsItCannotWorkWithAreRefusedNamingThem() {
        assertThat(HttpHandler.settingProblems(Optional.of("hooks.internal:8080"), Duration.ofSeconds(1), List.of()))
                .containsExactly("http.url must be an http or https URL with a host (and a port from 1 to 65535), e.g."
                        + " http://hooks.internal:8080/jobs; got scheme 'hooks.internal' and no host");
        assertThat(HttpHandler.settingProblems(Optional.of("/jobs"), Duration.ZERO, List.of())).hasSize(2)
                .last().isEqualTo("http.timeout must be at least 1ms, got PT0S");
        assertThat(HttpHandler.settingProblems(Optional.of("https://hooks.example/x?t=1"), Duration.ofSeconds(1), List.of())).isEmpty();
        assertThat(HttpHandler.settingProblems(Optional.of("http://hooks.example:0/x"), Duration.ofSeconds(1), List.of()))
                .singleElement().asString().startsWith("http.url must be");
        assertThatThrownBy(() -> new HttpHandler(Optional.of(URI.create("hooks.internal:8080")), Duration.ofSeconds(1), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http.url must be");
    }

    /**
     * A URL that does not parse is refused naming the setting and where, not quoting it: read as a
     * URI by the configuration, it failed the mapping with a message quoting it whole, its secret
     * with it, in the log and the pod's termination message.
     */
    @Test
    void aConfiguredUrlThatDoesNotParseIsRefusedWithoutQuotingIt() {
        assertThat(HttpHandler.settingProblems(Optional.of("https://hooks.example/x y?token=s3cret"), Duration.ofSeconds(1), List.of()))
                .containsExactly("http.url is not a valid URL (Illegal character in path at character 23)");
    }

    /**
     * An allowedHosts entry that can match no URL (a scheme, a path, a bare IPv6 address, a port
     * that is none) is refused at start-up naming it: it failed closed, every job for that host
     * handed back about an hour and then dead-lettered, while the node looked ready.
     */
    @Test
    void allowedHostsEntriesThatCanMatchNoUrlAreRefusedNamingThem() {
        assertThat(HttpHandler.settingProblems(Optional.empty(), Duration.ofSeconds(1), List.of("hooks.internal",
                "hooks.internal:8443", "*.example.com", "*.example.com:443", "10.0.0.7", "[::1]", "[::1]:8080", " ")))
                .isEmpty();
        for (String bad : List.of("https://hooks.internal", "hooks.internal/", "::1", "host:abc", "host:0", "host:70000",
                "user@host", "*", "*.", "a*.example.com", "*example.com", ":8080", "host:08443")) {
            assertThat(HttpHandler.settingProblems(Optional.empty(), Duration.ofSeconds(1), List.of(bad))).as(bad)
                    .singleElement().asString().startsWith("http.allowedHosts entry 1 of 1 ").contains("entries are host, host:port");
        }
        assertThatThrownBy(() -> new HttpHandler(Optional.empty(), Duration.ofSeconds(1),
                List.of("hooks.internal", "https://user:s3cret@hooks.internal")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("http.allowedHosts entry 2 of 2 is not a host")
                .message().doesNotContain("s3cret");
    }

    /** The exception as a job's stored error shows it: with its causes and their messages (JobRunner.describe). */
    private static String withCauses(Throwable e) {
        java.io.StringWriter text = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }
}
