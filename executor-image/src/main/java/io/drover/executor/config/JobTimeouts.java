package io.drover.executor.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The jobTimeouts setting as text: a JSON object of job type to duration, e.g.
 * {@code {"report": "2h", "http": "30s"}} (JSON, so any type name can be a key).
 */
public final class JobTimeouts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobTimeouts() {
    }

    /** @throws IllegalArgumentException naming the setting and the bad entry */
    public static Map<String, Duration> parse(String text) {
        Map<String, Duration> timeouts = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return timeouts;
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (Exception e) {
            node = null;
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("jobTimeouts must be a JSON object of job type to duration,"
                    + " e.g. {\"report\": \"2h\", \"http\": \"30s\"}; got '" + text + "'");
        }
        node.fields().forEachRemaining(e -> timeouts.put(e.getKey(),
                Durations.parse("jobTimeouts[" + e.getKey() + "]", e.getValue().asText())));
        return timeouts;
    }
}
