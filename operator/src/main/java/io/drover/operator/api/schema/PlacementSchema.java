package io.drover.operator.api.schema;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

import java.util.List;

import static io.drover.operator.api.schema.SchemaCompletions.addRules;
import static io.drover.operator.api.schema.SchemaCompletions.child;
import static io.drover.operator.api.schema.SchemaCompletions.enumOf;
import static io.drover.operator.api.schema.SchemaCompletions.items;
import static io.drover.operator.api.schema.SchemaCompletions.rule;

/**
 * Completes the generated schema of {@code spec.placement}, which the operator passes on to the
 * executor pods as it is: its nodeSelector, tolerations and affinity get the checks the API server
 * makes of a pod's (fabric8's Toleration and Affinity are library types an annotation cannot reach).
 * Of affinity, the ones easy to get wrong: a required node affinity needs nodeSelectorTerms;
 * selector requirements have a known operator, values to match (one for Gt and Lt), label keys,
 * and label values where the API server checks them; matchFields name metadata.name; weights are
 * 1-100; pod affinity terms have a topologyKey, namespaces that are names, and matchLabelKeys
 * and mismatchLabelKeys only with a labelSelector and not both of one key.
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
    /** Each list of affinity terms (node selector terms, preferred terms, pod affinity terms): the cost budget multiplies them. */
    static final long MAX_TERMS = 8;
    /** matchExpressions and matchFields of a node selector term, matchLabels and matchExpressions of a pod selector. */
    static final long MAX_REQUIREMENTS = 16;
    static final long MAX_VALUES = 64;
    /** A namespace's name is a DNS label. */
    static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
    /** A node's name is a DNS subdomain. */
    static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

    private PlacementSchema() {
    }

    static void complete(JSONSchemaProps spec) {
        JSONSchemaProps placement = child(spec, "placement");
        LabelSchema.labels(child(placement, "nodeSelector"), MAX_NODE_SELECTOR);
        JSONSchemaProps tolerations = child(placement, "tolerations");
        tolerations.setMaxItems(MAX_TOLERATIONS);
        toleration(items(tolerations));
        JSONSchemaProps affinity = child(placement, "affinity");
        nodeAffinity(child(affinity, "nodeAffinity"));
        podAffinity(child(affinity, "podAffinity"));
        podAffinity(child(affinity, "podAntiAffinity"));
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

    /** The API server's validateNodeAffinity. */
    private static void nodeAffinity(JSONSchemaProps nodeAffinity) {
        JSONSchemaProps required = child(nodeAffinity, "requiredDuringSchedulingIgnoredDuringExecution");
        required.setRequired(List.of("nodeSelectorTerms"));
        JSONSchemaProps terms = child(required, "nodeSelectorTerms");
        terms.setMinItems(1L);
        terms.setMaxItems(MAX_TERMS);
        // The API server checks the label values of a required term; of a preferred one it only warns.
        nodeSelectorTerm(items(terms), true);
        JSONSchemaProps preferred = child(nodeAffinity, "preferredDuringSchedulingIgnoredDuringExecution");
        preferred.setMaxItems(MAX_TERMS);
        JSONSchemaProps term = items(preferred);
        term.setRequired(List.of("weight"));
        weight(child(term, "weight"));
        nodeSelectorTerm(child(term, "preference"), false);
    }

    private static void nodeSelectorTerm(JSONSchemaProps term, boolean labelValues) {
        JSONSchemaProps expressions = child(term, "matchExpressions");
        expressions.setMaxItems(MAX_REQUIREMENTS);
        JSONSchemaProps requirement = items(expressions);
        requirement.setRequired(List.of("key", "operator"));
        LabelSchema.key(child(requirement, "key"));
        child(requirement, "operator").setEnum(enumOf("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"));
        JSONSchemaProps values = child(requirement, "values");
        values.setMaxItems(MAX_VALUES);
        if (labelValues) {
            items(values).setMaxLength(63L);
            items(values).setPattern(LabelSchema.LABEL_VALUE);
        }
        addRules(requirement, rule("self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0"
                        + " : self.operator in ['Gt', 'Lt'] ? has(self.values) && size(self.values) == 1"
                        + " : !has(self.values) || size(self.values) == 0",
                "operators In and NotIn need values, Gt and Lt exactly one, Exists and DoesNotExist none", ".values"));

        JSONSchemaProps fields = child(term, "matchFields");
        fields.setMaxItems(MAX_REQUIREMENTS);
        JSONSchemaProps field = items(fields);
        field.setRequired(List.of("key", "operator", "values"));
        child(field, "key").setEnum(enumOf("metadata.name"));
        child(field, "operator").setEnum(enumOf("In", "NotIn"));
        JSONSchemaProps nodeNames = child(field, "values");
        nodeNames.setMinItems(1L);
        nodeNames.setMaxItems(1L);
        items(nodeNames).setMaxLength(253L);
        items(nodeNames).setPattern(DNS_SUBDOMAIN);
    }

    /** The API server's validatePodAffinity and validatePodAntiAffinity. */
    private static void podAffinity(JSONSchemaProps podAffinity) {
        JSONSchemaProps required = child(podAffinity, "requiredDuringSchedulingIgnoredDuringExecution");
        required.setMaxItems(MAX_TERMS);
        podAffinityTerm(items(required));
        JSONSchemaProps preferred = child(podAffinity, "preferredDuringSchedulingIgnoredDuringExecution");
        preferred.setMaxItems(MAX_TERMS);
        JSONSchemaProps weighted = items(preferred);
        weighted.setRequired(List.of("weight", "podAffinityTerm"));
        weight(child(weighted, "weight"));
        podAffinityTerm(child(weighted, "podAffinityTerm"));
    }

    private static void podAffinityTerm(JSONSchemaProps term) {
        term.setRequired(List.of("topologyKey"));
        LabelSchema.key(child(term, "topologyKey"));
        LabelSchema.selector(child(term, "labelSelector"), MAX_REQUIREMENTS);
        LabelSchema.selector(child(term, "namespaceSelector"), MAX_REQUIREMENTS);
        JSONSchemaProps namespaces = child(term, "namespaces");
        namespaces.setMaxItems(MAX_VALUES);
        items(namespaces).setMaxLength(63L);
        items(namespaces).setPattern(DNS_LABEL);
        for (String keys : List.of("matchLabelKeys", "mismatchLabelKeys")) {
            JSONSchemaProps list = child(term, keys);
            list.setMaxItems(MAX_REQUIREMENTS);
            LabelSchema.key(items(list));
        }
        addRules(term,
                rule("has(self.labelSelector) || ((!has(self.matchLabelKeys) || size(self.matchLabelKeys) == 0)"
                                + " && (!has(self.mismatchLabelKeys) || size(self.mismatchLabelKeys) == 0))",
                        "matchLabelKeys and mismatchLabelKeys need a labelSelector", ".labelSelector"),
                rule("!has(self.matchLabelKeys) || !has(self.mismatchLabelKeys)"
                                + " || !self.matchLabelKeys.exists(k, k in self.mismatchLabelKeys)",
                        "a key may not be in both matchLabelKeys and mismatchLabelKeys", ".matchLabelKeys"));
    }

    private static void weight(JSONSchemaProps weight) {
        weight.setMinimum(1.0);
        weight.setMaximum(100.0);
    }
}
