package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Many jobs in one call, written in one transaction: all of them or none.
 *
 * @param jobs  the jobs read, at most {@code drover.api.maxBatch} of them
 * @param count how many the call gave (past maxBatch they are counted, not read)
 */
public record JobBatchRequest(List<JobRequest> jobs, @Schema(hidden = true) int count) {
    /**
     * Reads at most {@code keep} jobs and skips the rest, counting them: a body of three million
     * empty jobs ({"jobs":[{},{},...]}, 10 MB) held 124 MB of records before the batch's size was
     * checked. Registered by {@link ApiJson} with the node's maxBatch.
     */
    static final class Reader extends StdDeserializer<JobBatchRequest> {
        private final int keep;

        Reader(int keep) {
            super(JobBatchRequest.class);
            this.keep = keep;
        }

        /** For an unknown field's error ("the fields are jobs"): without it Jackson names none. */
        @Override
        public java.util.Collection<Object> getKnownPropertyNames() {
            return List.of("jobs");
        }

        @Override
        public JobBatchRequest deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                return (JobBatchRequest) ctx.handleUnexpectedToken(JobBatchRequest.class, p);
            }
            List<JobRequest> jobs = null;
            int count = 0;
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                p.nextToken();
                if (!"jobs".equals(name)) {
                    ctx.handleUnknownProperty(p, this, JobBatchRequest.class, name);
                    continue;
                }
                if (p.currentToken() == JsonToken.VALUE_NULL) {
                    jobs = null;
                    count = 0;
                    continue;
                }
                if (p.currentToken() != JsonToken.START_ARRAY) {
                    try {
                        ctx.handleUnexpectedToken(ctx.constructType(List.class), p);
                    } catch (JsonMappingException e) {
                        throw JsonMappingException.wrapWithPath(e, JobBatchRequest.class, "jobs");
                    }
                }
                jobs = new ArrayList<>();
                count = 0;
                JavaType type = ctx.constructType(JobRequest.class);
                JsonDeserializer<Object> one = ctx.findRootValueDeserializer(type);
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (count < keep) {
                        try {
                            jobs.add(p.currentToken() == JsonToken.VALUE_NULL ? null : (JobRequest) one.deserialize(p, ctx));
                        } catch (JsonMappingException e) {
                            throw JsonMappingException.wrapWithPath(JsonMappingException.wrapWithPath(e, jobs, count),
                                    JobBatchRequest.class, "jobs");
                        }
                    } else {
                        p.skipChildren();
                    }
                    count++;
                }
            }
            return new JobBatchRequest(jobs, count);
        }
    }
}
