package io.drover.executor.config;

import java.util.List;

/** Thrown at startup for bad settings; the message names every offending setting at once. */
public class InvalidSettingsException extends IllegalArgumentException {
    private final List<String> problems;

    public InvalidSettingsException(List<String> problems) {
        super("Invalid Drover executor settings: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
