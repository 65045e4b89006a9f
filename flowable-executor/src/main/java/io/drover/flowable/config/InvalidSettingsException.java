package io.drover.flowable.config;

import java.util.List;

/** Settings the engine cannot run with, every one named in one message. */
public final class InvalidSettingsException extends RuntimeException {
    private final List<String> problems;

    public InvalidSettingsException(List<String> problems) {
        super("Invalid Drover executor settings for the Flowable engine: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
