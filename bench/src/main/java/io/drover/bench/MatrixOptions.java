package io.drover.bench;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** What a matrix run ({@code matrix}, {@code local}) needs besides its database. */
final class MatrixOptions {
    @Option(names = "--executor-jar", required = true, paramLabel = "PATH",
            description = "the packaged executor (quarkus-run.jar) the nodes run")
    Path executorJar;

    @Option(names = "--out", paramLabel = "DIR",
            description = "where local.{md,json,png} go (default: docs/benchmarks; target/bench-quick with --quick)")
    Path out;

    @Option(names = "--quick", description = "the short matrix")
    boolean quick;

    @Option(names = "--command", defaultValue = "bench matrix", description = "how the report says it was made")
    String command;

    @Option(names = "--revision", defaultValue = "unknown", description = "the source revision the report names")
    String revision;

    Path out() {
        return out != null ? out : Path.of(quick ? "target/bench-quick" : "docs/benchmarks");
    }
}
