package io.drover.executor.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --name=value} command-line options. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args) {
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("options look like --name=value, got '" + arg + "'");
            }
            int eq = arg.indexOf('=');
            values.put(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "true" : arg.substring(eq + 1));
        }
    }

    String get(String name, String def) {
        return values.getOrDefault(name, def);
    }

    String required(String name) {
        String v = values.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    int integer(String name, int def) {
        return Integer.parseInt(get(name, Integer.toString(def)));
    }

    boolean has(String name) {
        return values.containsKey(name);
    }
}
