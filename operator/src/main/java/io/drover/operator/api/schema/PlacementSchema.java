package io.drover.operator.api.schema;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

import static io.drover.operator.api.schema.SchemaCompletions.addRules;
import static io.drover.operator.api.schema.SchemaCompletions.child;
import static io.drover.operator.api.schema.SchemaCompletions.enumOf;
import static io.drover.operator.api.schema.SchemaCompletions.items;
import static io.drover.operator.api.schema.SchemaCompletions.rule;

/**
 * Completes the generated schema of {@code spec.placement}, which the operator passes on to the
 * executor pods as it is: its nodeSelector and tolerations get the checks the API server makes of
 * a pod's (fabric8's Toleration is a library type an annotation cannot reach).
 *
 * <p>Why: without them {@code tolerations: [{effect: NoScheduleX}]} or a node selector key
 * {@code 'bad key!'} passed the API server, and the operator's write of the StatefulSet failed at
 * every pass (Degraded ReconcileFailed, naming {@code spec.template.spec.tolerations[0].effect}
 * of the StatefulSet, not the ExecutorCluster's field), while the cluster's other changes (a
 * password rotation, an image) waited behind it. Now the API server refuses the ExecutorCluster,
 * naming the field.
 *
 * <p>Lists and maps are bounded, so the rules stay within the API server's CEL cost budget.
 */
final class PlacementSchema {
    static final long MAX_NODE_SELECTOR = 32;
    static final long MAX_TOLERATIONS = 32;

    private PlacementSchema() {
    }

    static void complete(JSONSchemaProps spec) {
        JSONSchemaProps placement = child(spec, "placement");
        LabelSchema.labels(child(placement, "nodeSelector"), MAX_NODE_SELECTOR);
        JSONSchemaProps tolerations = child(placement, "tolerations");
        tolerations.setMaxItems(MAX_TOLERATIONS);
        toleration(items(tolerations));
    }

    /** The API server's ValidateTolerations. */
    private static void toleration(JSONSchemaProps toleration) {
        JSONSchemaProps key = child(toleration, "key");
        LabelSchema.key(key);
        key.setPattern("^$|" + LabelSchema.LABEL_KEY); // empty: every key (with operator Exists)
        child(toleration, "operator").setEnum(enumOf("", "Equal", "Exists"));
        child(toleration, "effect").setEnum(enumOf("", "NoSchedule", "PreferNoSchedule", "NoExecute"));
        JSONSchemaProps value = child(toleration, "value");
        value.setMaxLength(63L);
        value.setPattern(LabelSchema.LABEL_VALUE);
        addRules(toleration,
                rule("(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
                        "a toleration without a key must have operator Exists (it then tolerates every taint)", ".operator"),
                rule("!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
                        "a toleration with operator Exists takes no value", ".value"),
                rule("!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
                        "tolerationSeconds needs effect NoExecute", ".effect"));
    }
}
