package io.drover.bench.core;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of one or more nodes' /q/metrics, with the few aggregations the benchmark
 * needs: sums across nodes and quantiles from merged histogram buckets.
 */
public final class Prometheus {
    /** Micrometer's process.cpu.time (the JVM's CPU time, all threads), as a node's /q/metrics names it. */
    public static final String PROCESS_CPU_NANOS = "process_cpu_time_ns_total";
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private Prometheus(List<Sample> samples) {
        this.samples = samples;
    }

    public static Prometheus parse(String exposition) {
        List<Sample> samples = new ArrayList<>();
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Prometheus(samples);
    }

    /**
     * Scrapes every URL and merges the samples (each node's samples stay separate lines). A scrape
     * once hung for 4 minutes while the nodes answered curl (cause not found; the client offered
     * the HTTP/2 upgrade, and a request timeout does not bound reading the body), so this speaks
     * HTTP/1.1, bounds the whole exchange and tries a node {@value #ATTEMPTS} times.
     */
    public static Prometheus scrape(List<URI> urls) throws Exception {
        List<Sample> all = new ArrayList<>();
        for (URI url : urls) {
            all.addAll(parse(fetch(url)).samples);
        }
        return new Prometheus(all);
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final int ATTEMPTS = 3;
    private static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(15);

    private static String fetch(URI url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build();
        for (int attempt = 1; ; attempt++) {
            var pending = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
            try {
                HttpResponse<String> response = pending.get(EXCHANGE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                if (response.statusCode() == 200) {
                    return response.body();
                }
                if (attempt == ATTEMPTS) {
                    throw new IllegalStateException(url + " answered " + response.statusCode());
                }
            } catch (TimeoutException e) {
                pending.cancel(true);
                if (attempt == ATTEMPTS) {
                    throw new IllegalStateException(url + " did not answer in " + EXCHANGE_TIMEOUT.toSeconds() + " s, "
                            + ATTEMPTS + " times", e);
                }
            }
        }
    }

    public double sum(String name) {
        return sum(name, labels -> true);
    }

    /** An empty scrape: the baseline of nodes that just started. */
    public static Prometheus empty() {
        return new Prometheus(List.of());
    }

    /** sum(name) now minus sum(name) in the baseline: what happened between two scrapes. */
    public double sumSince(String name, Prometheus baseline) {
        return sum(name) - baseline.sum(name);
    }

    /** {@link #sumSince}, or {@code absent} when this scrape has no such sample (a metric the nodes lack). */
    public double sumSince(String name, Prometheus baseline, double absent) {
        return samples.stream().anyMatch(s -> s.name.equals(name)) ? sumSince(name, baseline) : absent;
    }

    /** Mean of a timer or summary between two scrapes, NaN when nothing was counted. */
    public double meanSince(String base, Prometheus baseline) {
        double count = sumSince(base + "_count", baseline);
        return count == 0 ? Double.NaN : sumSince(base + "_sum", baseline) / count;
    }

    /** Quantile of a histogram's observations between two scrapes. */
    public double quantileSince(String base, double q, Prometheus baseline) {
        List<Sample> delta = new ArrayList<>(samples);
        for (Sample s : baseline.samples) {
            if (s.name.equals(base + "_bucket")) {
                delta.add(new Sample(s.name, s.labels, -s.value));
            }
        }
        return new Prometheus(delta).quantile(base, q);
    }

    public double sum(String name, Predicate<Map<String, String>> filter) {
        return samples.stream().filter(s -> s.name.equals(name) && filter.test(s.labels))
                .mapToDouble(Sample::value).filter(v -> !Double.isNaN(v)).sum();
    }

    /** sum(name_sum) / sum(name_count), NaN when nothing was counted. */
    public double mean(String base) {
        double count = sum(base + "_count");
        return count == 0 ? Double.NaN : sum(base + "_sum") / count;
    }

    /**
     * The q-quantile of a histogram, its buckets summed over all nodes, with linear
     * interpolation inside the bucket (as PromQL's histogram_quantile).
     */
    public double quantile(String base, double q) {
        Map<Double, Double> cumulative = new TreeMap<>();
        for (Sample s : samples) {
            if (s.name.equals(base + "_bucket") && s.labels.containsKey("le")) {
                String le = s.labels.get("le");
                double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
                cumulative.merge(bound, s.value, Double::sum);
            }
        }
        if (cumulative.isEmpty()) {
            return Double.NaN;
        }
        double total = cumulative.get(Double.POSITIVE_INFINITY) == null ? 0 : cumulative.get(Double.POSITIVE_INFINITY);
        if (total == 0) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
            if (bucket.getValue() >= rank) {
                if (bucket.getKey().isInfinite()) {
                    return lowerBound;
                }
                double inBucket = bucket.getValue() - lowerCount;
                double fraction = inBucket == 0 ? 1 : (rank - lowerCount) / inBucket;
                return lowerBound + (bucket.getKey() - lowerBound) * fraction;
            }
            lowerBound = bucket.getKey();
            lowerCount = bucket.getValue();
        }
        return lowerBound;
    }
}
