package io.drover.operator.api.schema;

import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

/**
 * Completes the generated schema of {@code spec.resources}: every value of {@code limits} and
 * {@code requests} must be a Kubernetes quantity, and each map is bounded.
 *
 * <p>Why a post-processor: fabric8's generator writes a library type's {@code Map<String,
 * Quantity>} as bare int-or-string values, and an annotation cannot reach a library class's map
 * values. Without this, "2 GB" or "lots" passed the API server and failed only when the operator
 * wrote the StatefulSet. controller-gen writes the same pattern for Go's
 * {@code resource.Quantity}; here it leaves out the sign, which no container resource may have.
 * The bounds (entries, length) also keep the CEL rule on {@code resources} (requests not above
 * limits, in ExecutorClusterSpec) within the API server's cost budget, which refuses the CRD for
 * unbounded maps and strings.
 *
 * <p>Run at build time by {@link SchemaCompletions}.
 */
public final class QuantitySchema {
    private QuantitySchema() {
    }

    /** A quantity without a sign (ExecutorClusterSpec.QUANTITY, which its CEL rules use too). */
    public static final String QUANTITY = ExecutorClusterSpec.QUANTITY;
    /** Longer than any real quantity ("123.456Gi" is 9), short enough to bound a rule's cost. */
    public static final long MAX_QUANTITY_LENGTH = 64;
    /** cpu, memory, ephemeral-storage, hugepages of a few sizes and some extended resources. */
    public static final long MAX_RESOURCES = 16;

    /** Completes {@code spec.resources} of the generated schema. */
    static void complete(JSONSchemaProps spec) {
        JSONSchemaProps resources = SchemaCompletions.child(spec, "resources");
        for (String map : new String[] {"limits", "requests"}) {
            JSONSchemaProps entries = SchemaCompletions.child(resources, map);
            if (entries.getAdditionalProperties() == null || entries.getAdditionalProperties().getSchema() == null) {
                throw new IllegalStateException("spec.resources." + map + " of the generated CRD has no value schema;"
                        + " the generator's output changed: update " + QuantitySchema.class.getName());
            }
            entries.setMaxProperties(MAX_RESOURCES);
            JSONSchemaProps value = entries.getAdditionalProperties().getSchema();
            value.setPattern(QUANTITY); // applies to string values; a YAML integer is a quantity too
            value.setMaxLength(MAX_QUANTITY_LENGTH);
            value.setMinimum(0.0); // applies to integer values
        }
    }
}
