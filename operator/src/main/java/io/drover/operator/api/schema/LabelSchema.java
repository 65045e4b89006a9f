package io.drover.operator.api.schema;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

import java.util.List;

import static io.drover.operator.api.schema.SchemaCompletions.addRules;
import static io.drover.operator.api.schema.SchemaCompletions.child;
import static io.drover.operator.api.schema.SchemaCompletions.enumOf;
import static io.drover.operator.api.schema.SchemaCompletions.items;
import static io.drover.operator.api.schema.SchemaCompletions.rule;

/**
 * Kubernetes' rules for labels, label selectors and names, as schema: the checks the API server
 * makes of a NetworkPolicy's selectors and of a pod's node selector, affinity and tolerations,
 * which the ExecutorCluster passes on.
 */
final class LabelSchema {
    /** A label value (Kubernetes' own rule: at most 63, alphanumeric at both ends). */
    static final String LABEL_VALUE = "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";
    /**
     * A label key (Kubernetes' qualified name): an optional DNS-subdomain prefix (at most 253,
     * {@link #LABEL_KEY_PREFIX_FITS}) and '/', then a name of at most 63 characters,
     * alphanumeric at both ends. No backslashes, as for CEL.
     */
    static final String LABEL_KEY = "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
            + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
    /** The prefix of a label key {@code k} (before its '/') is at most 253 characters. */
    static final String LABEL_KEY_PREFIX_FITS = "(!k.contains('/') || k.indexOf('/') <= 253)";
    static final String LABEL_KEY_MESSAGE = "a label key is a name of at most 63 letters, digits, '-', '_' and '.',"
            + " alphanumeric at both ends, with an optional DNS prefix of at most 253 characters and '/'"
            + " (e.g. app.kubernetes.io/name)";
    /** A 253-character prefix, '/', a 63-character name. */
    static final long MAX_LABEL_KEY_LENGTH = 317;

    private LabelSchema() {
    }

    /** A map of label keys to label values, such as matchLabels, of at most {@code maxEntries}. */
    static void labels(JSONSchemaProps labels, long maxEntries) {
        labels.setMaxProperties(maxEntries);
        JSONSchemaProps value = labels.getAdditionalProperties().getSchema();
        value.setMaxLength(63L);
        value.setPattern(LABEL_VALUE);
        addRules(labels, rule("self.all(k, k.matches('" + LABEL_KEY + "') && " + LABEL_KEY_PREFIX_FITS + ")",
                LABEL_KEY_MESSAGE, null));
    }

    /** A string that is a label key. */
    static void key(JSONSchemaProps key) {
        key.setMaxLength(MAX_LABEL_KEY_LENGTH);
        key.setPattern(LABEL_KEY);
        addRules(key, rule("[self].all(k, " + LABEL_KEY_PREFIX_FITS + ")", LABEL_KEY_MESSAGE, null));
    }

    /** A label selector (matchLabels, matchExpressions), each list and map of at most {@code maxEntries}. */
    static void selector(JSONSchemaProps selector, long maxEntries) {
        labels(child(selector, "matchLabels"), maxEntries);
        JSONSchemaProps expressions = child(selector, "matchExpressions");
        expressions.setMaxItems(maxEntries);
        JSONSchemaProps requirement = items(expressions);
        key(child(requirement, "key"));
        child(requirement, "operator").setEnum(enumOf("In", "NotIn", "Exists", "DoesNotExist"));
        JSONSchemaProps values = child(requirement, "values");
        values.setMaxItems(maxEntries);
        items(values).setMaxLength(63L);
        items(values).setPattern(LABEL_VALUE);
        requirement.setRequired(List.of("key", "operator"));
        addRules(requirement, rule("self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0"
                        + " : !has(self.values) || size(self.values) == 0",
                "operators In and NotIn need values; Exists and DoesNotExist take none", ".values"));
    }
}
