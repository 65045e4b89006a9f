package io.drover.executor.bench;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help} for every bench command: picocli's standard help mixin would also
 * add a {@code --version} that has nothing to print.
 */
public final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean requested;
}
