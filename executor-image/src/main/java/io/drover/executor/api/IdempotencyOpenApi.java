package io.drover.executor.api;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * Declares in the OpenAPI document what the {@code Idempotency-Key} header does to an operation
 * that takes it ({@link IdempotencyKeys}): its 201 may be a replay, marked with the
 * {@code Idempotent-Replayed} header, a key reused with another request is refused with 422, and one whose first call is
 * still writing with 409.
 * In one place for every such operation, rather than the same annotations on each.
 */
public final class IdempotencyOpenApi implements OASFilter {
    @Override
    public Operation filterOperation(Operation operation) {
        boolean keyed = operation.getParameters() != null
                && operation.getParameters().stream().anyMatch(p -> IdempotencyKeys.HEADER.equals(p.getName()));
        if (!keyed || operation.getResponses() == null) {
            return operation;
        }
        APIResponse created = operation.getResponses().getAPIResponse("201");
        if (created == null) {
            created = OASFactory.createAPIResponse().description("Created");
            operation.getResponses().addAPIResponse("201", created);
        }
        created.addHeader(IdempotencyKeys.REPLAYED, OASFactory.createHeader()
                .description("true when this answer replays the first call made with the same " + IdempotencyKeys.HEADER)
                .schema(OASFactory.createSchema().addType(Schema.SchemaType.BOOLEAN)));
        operation.getResponses().addAPIResponse("422", OASFactory.createAPIResponse()
                .description("The " + IdempotencyKeys.HEADER + " was used with another request"));
        operation.getResponses().addAPIResponse("409", OASFactory.createAPIResponse()
                .description("Another call with the same " + IdempotencyKeys.HEADER + " is still in progress; retry after"
                        + " Retry-After seconds"));
        return operation;
    }
}
