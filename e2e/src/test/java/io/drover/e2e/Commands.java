package io.drover.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs kubectl and helm as a user would, capturing their output. */
final class Commands {
    record Result(int exit, String output) {
        Result orFail() {
            if (exit != 0) {
                throw new AssertionError("command failed (" + exit + "):\n" + output);
            }
            return this;
        }
    }

    private Commands() {
    }

    static Result run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command);
            }
            return new Result(p.exitValue(), String.join(" ", command) + "\n" + out);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
