package io.drover.executor.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * The benchmark's in-cluster half, in the executor image: {@code java -jar quarkus-run.jar bench
 * run ...} (see {@link RunCommand}), what the bench Job of e2e/bench/run-one.sh runs. The
 * host-only tools (local nodes, the matrix, the reports and their charts) are in the bench
 * module, so that the production image carries neither them nor the AWT they draw with.
 */
@Command(name = "bench", subcommands = {RunCommand.class, HelpCommand.class},
        description = "The Drover benchmark, against a running fleet.")
public final class BenchMain implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    public static int run(String[] argv) {
        return BenchCli.commandLine(new BenchMain()).execute(argv);
    }

    /** No command given: the usage, and the exit code of a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }
}
