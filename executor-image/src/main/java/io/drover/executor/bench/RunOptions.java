package io.drover.executor.bench;

import io.drover.bench.core.BenchResult;
import io.drover.contract.SettingDefaults;
import io.drover.executor.acquire.LockMode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The options of one run, whoever runs the nodes: the image's {@code bench run} (a running
 * fleet) and the bench module's {@code run} (local nodes). The executor settings keep their
 * usual names.
 */
public final class RunOptions {
    @Mixin
    DatabaseOptions connection;

    @Option(names = "--schema", defaultValue = "drover_bench")
    String schema;

    @Option(names = "--kind", defaultValue = "noop", converter = Converters.Kind.class,
            paramLabel = "noop|sleep:<ms>|timer|timer:<window>")
    JobKind kind;

    @Option(names = "--jobs", defaultValue = "100000")
    int jobs;

    @Option(names = "--nodes", defaultValue = "2")
    int nodes;

    @Option(names = "--lockMode", defaultValue = SettingDefaults.LOCK_MODE, converter = Converters.Lock.class)
    LockMode lockMode;

    @Option(names = "--acquirePageSize", defaultValue = SettingDefaults.ACQUIRE_PAGE_SIZE)
    int acquirePageSize;

    @Option(names = "--threads", defaultValue = SettingDefaults.THREADS)
    int threads;

    @Option(names = "--queueSize", defaultValue = SettingDefaults.QUEUE_SIZE)
    int queueSize;

    @Option(names = "--timeout", defaultValue = "600s", converter = Converters.Time.class)
    Duration timeout;

    @Option(names = "--json", paramLabel = "FILE",
            description = "write the result JSON to FILE instead of to stdout after the text")
    Path json;

    public Database database() {
        return connection.database();
    }

    public String schema() {
        return schema;
    }

    public Scenario scenario() {
        return new Scenario(kind, jobs, nodes, lockMode, acquirePageSize, threads, queueSize, timeout);
    }

    /** The human text, then the JSON document to --json or to stdout. */
    public void publish(BenchResult result) throws IOException {
        System.out.print(result.text());
        String document = BenchResult.JSON.writeValueAsString(result);
        if (json != null) {
            Files.writeString(json, document);
        } else {
            System.out.println(document);
        }
    }
}
