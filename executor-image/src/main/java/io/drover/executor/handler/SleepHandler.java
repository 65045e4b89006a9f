package io.drover.executor.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Sleeps a fixed time taken from the payload: a number of milliseconds ({@code "100"}) or
 * {@code {"ms": 100}}. The classic benchmark's "100 ms job".
 */
public final class SleepHandler implements JobHandler {
    public static final String TYPE = "sleep";
    private static final ObjectMapper JSON = PayloadJson.mapper();

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void execute(JobContext job) throws Exception {
        Thread.sleep(millis(job.payload()));
    }

    static long millis(String payload) throws InvalidPayloadException {
        if (payload == null || payload.isBlank()) {
            throw new InvalidPayloadException("sleep payload must be milliseconds, e.g. \"100\" or {\"ms\": 100}; got nothing");
        }
        long ms;
        try {
            JsonNode node = JSON.readTree(payload);
            JsonNode value = node.isObject() ? node.get("ms") : node;
            if (value == null || !value.canConvertToLong()) {
                throw new InvalidPayloadException("sleep payload must be milliseconds, e.g. \"100\" or {\"ms\": 100}; got " + abbreviate(payload));
            }
            ms = value.asLong();
        } catch (InvalidPayloadException e) {
            throw e;
        } catch (Exception e) {
            throw new InvalidPayloadException("sleep payload is not a number or JSON: " + abbreviate(payload), e);
        }
        if (ms < 0 || ms > 3_600_000) {
            throw new InvalidPayloadException("sleep payload must be between 0 and 3600000 ms, got " + ms);
        }
        return ms;
    }

    static String abbreviate(String s) {
        return s.length() <= 200 ? "'" + s + "'" : "'" + s.substring(0, 200) + "...'";
    }
}
