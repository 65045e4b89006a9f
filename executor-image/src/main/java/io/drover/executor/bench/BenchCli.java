package io.drover.executor.bench;

import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * How both benchmark tools (the image's {@code bench} and the bench module's
 * {@code drover-bench}) run a command line: picocli refuses unknown and malformed options with
 * exit code 2; an {@link IllegalArgumentException} from a command (bad input found late, e.g. a
 * results directory without results) is also the user's mistake, so exit code 2 as well;
 * anything else is a failure, with its stack trace, exit code 1.
 */
public final class BenchCli {
    private BenchCli() {
    }

    public static CommandLine commandLine(Object command) {
        return new CommandLine(command).setExecutionExceptionHandler(BenchCli::failed);
    }

    private static int failed(Exception e, CommandLine command, ParseResult parsed) {
        String tool = command.getCommandSpec().root().name();
        if (e instanceof IllegalArgumentException) {
            command.getErr().println(tool + ": " + e.getMessage());
            command.usage(command.getErr());
            return 2;
        }
        command.getErr().println(tool + " failed: " + e);
        e.printStackTrace(command.getErr());
        return 1;
    }
}
