package io.drover.bench;

import io.drover.executor.bench.BenchCli;
import io.drover.executor.bench.HelpOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * The benchmark's host-only tools, beside the executor image's in-cluster {@code bench run}:
 * {@code local} ({@code make bench}), {@code matrix}, {@code floor-clients} ({@code make bench-floor}),
 * {@code run} with local nodes, and
 * {@code report} (the in-cluster page and chart), {@code engines-report} (Flowable beside Drover),
 * {@code renewal} (lock renewal's database cost).
 */
@Command(name = "drover-bench",
        subcommands = {LocalCommand.class, MatrixCommand.class, FloorClientsCommand.class, LocalRunCommand.class, ClusterReport.class, EnginesReport.class, RenewalCost.class,
                HelpCommand.class},
        description = "The Drover benchmark's tools for this machine.")
public final class BenchTool implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(BenchCli.commandLine(new BenchTool()).execute(args));
    }

    /** No command given: the usage, and the exit code of a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }
}
