package io.drover.operator.api.schema;

import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

import static io.drover.operator.api.schema.SchemaCompletions.addRules;
import static io.drover.operator.api.schema.SchemaCompletions.rule;

/**
 * Completes the generated schema of {@code spec.resources}: every value of {@code limits} and
 * {@code requests} must be a Kubernetes quantity, and each map is bounded; every name is one a
 * container may have, hugepages come in whole pages and with cpu or memory, and {@code claims}
 * is refused.
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
 * <p>The names, hugepages and claims: the API server's checks of a container's resources
 * (validateContainerResourceName, the hugepage checks, validateResourceClaimNames). Without them
 * {@code requests: {cpus: 2}} (a typo) or {@code claims: [{name: gpu}]} passed the CRD, and the
 * operator's write of the StatefulSet failed at every pass (Degraded ReconcileFailed, naming
 * {@code spec.template.spec.containers[0].resources}, not the ExecutorCluster's field) while the
 * cluster's other changes waited behind it.
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

    /** A hugepages resource: "hugepages-" and a page size (a quantity, as QUANTITY bounds it). */
    private static final String HUGEPAGES = "^hugepages-" + QUANTITY.substring(1);
    /**
     * A name {@code k} a container's resources may have: cpu, memory, ephemeral-storage,
     * hugepages-&lt;size&gt;, or one with a domain: Kubernetes' own (kubernetes.io/...), or an
     * extended resource, which its quota name ("requests." and the name) must fit in a label key.
     */
    private static final String CONTAINER_RESOURCE = "k.matches('" + LabelSchema.LABEL_KEY + "') && "
            + LabelSchema.LABEL_KEY_PREFIX_FITS + " && (k in ['cpu', 'memory', 'ephemeral-storage'] || k.startsWith('hugepages-')"
            + " || (k.contains('/') && (k.contains('kubernetes.io/') || (!k.startsWith('requests.') && k.indexOf('/') <= 244))))";

    /** Completes {@code spec.resources} of the generated schema. */
    static void complete(JSONSchemaProps spec) {
        JSONSchemaProps resources = SchemaCompletions.child(spec, "resources");
        for (String map : new String[] {"limits", "requests"}) {
            String value = "string(self." + map + "[k])";
            String size = "quantity(k.substring(10))";
            addRules(resources,
                    rule("!has(self." + map + ") || self." + map + ".all(k, " + CONTAINER_RESOURCE + ")",
                            "every resources." + map + " name must be cpu, memory, ephemeral-storage, hugepages-<page size>"
                                    + " (e.g. hugepages-2Mi) or an extended resource named with a domain (e.g. nvidia.com/gpu):"
                                    + " the API server refuses other names in a pod", "." + map),
                    // A page size the API server can read, and an amount of whole pages. The
                    // pattern first (as for the quantity rules on resources): it bounds the
                    // quantity functions' work.
                    rule("!has(self." + map + ") || self." + map + ".all(k, !k.startsWith('hugepages-')"
                                    + " || (k.matches('" + HUGEPAGES + "') && isQuantity(k.substring(10)) && " + size + ".isInteger()"
                                    + " && " + size + ".compareTo(quantity('0')) > 0 && (!" + value + ".matches('" + QUANTITY + "')"
                                    + " || !isQuantity(" + value + ") || (quantity(" + value + ").isInteger()"
                                    + " && quantity(" + value + ").asInteger() % " + size + ".asInteger() == 0))))",
                            "resources." + map + " of hugepages must be named hugepages-<page size> (e.g. hugepages-2Mi,"
                                    + " hugepages-1Gi) and be whole multiples of the page size (e.g. hugepages-2Mi: 4Mi):"
                                    + " the API server refuses other amounts", "." + map));
        }
        addRules(resources,
                rule("!((has(self.limits) && self.limits.exists(k, k.startsWith('hugepages-')))"
                                + " || (has(self.requests) && self.requests.exists(k, k.startsWith('hugepages-'))))"
                                + " || (has(self.limits) && ('cpu' in self.limits || 'memory' in self.limits))"
                                + " || (has(self.requests) && ('cpu' in self.requests || 'memory' in self.requests))",
                        "resources with hugepages must also give cpu or memory (in requests or limits): the API server"
                                + " refuses hugepages alone", null),
                // A claim names one of the pod's resourceClaims, and the operator sets none.
                rule("!has(self.claims) || size(self.claims) == 0",
                        "resources.claims is not supported: a claim must name one of the pod's resourceClaims, which the"
                                + " operator does not set, so the API server would refuse every executor pod", ".claims"));
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
