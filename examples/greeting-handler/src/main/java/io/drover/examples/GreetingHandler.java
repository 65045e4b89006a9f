package io.drover.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.executor.handler.InvalidPayloadException;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import org.jboss.logging.Logger;

/**
 * Job type {@code greeting}, payload {@code {"name": "Ada"}}: logs a greeting. A payload
 * without a name is a permanent failure (dead letter at once, no retries).
 */
public class GreetingHandler implements JobHandler {
    private static final Logger LOG = Logger.getLogger(GreetingHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String type() {
        return "greeting";
    }

    @Override
    public void execute(JobContext job) throws Exception {
        LOG.infof("Hello, %s (job %d, attempt %d)", name(job.payload()), job.id(), job.attempt());
    }

    static String name(String payload) throws InvalidPayloadException {
        try {
            JsonNode name = JSON.readTree(payload == null ? "" : payload).path("name");
            if (!name.isTextual() || name.asText().isBlank()) {
                throw new InvalidPayloadException("greeting payload needs a non-empty \"name\", e.g. {\"name\": \"Ada\"}");
            }
            return name.asText();
        } catch (InvalidPayloadException e) {
            throw e;
        } catch (Exception e) {
            throw new InvalidPayloadException("greeting payload is not JSON: " + e.getMessage(), e);
        }
    }
}
