package io.drover.operator.api.schema;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRuleBuilder;

import java.util.ArrayList;
import java.util.List;

/**
 * Completes the generated schema of {@code spec.networkPolicy.from} and {@code .egress}, fabric8's
 * NetworkPolicyPeer and NetworkPolicyEgressRule, with the checks the API server makes of a
 * NetworkPolicy: a peer names podSelector, namespaceSelector or ipBlock, and ipBlock alone; cidr
 * and except are CIDRs, except strictly inside cidr; ports have a known protocol and a port
 * range that makes sense; selector requirements have a known operator and values to match.
 *
 * <p>Why: without them such a spec passed the API server, and the operator's write of the
 * NetworkPolicy failed at every pass (Degraded ReconcileFailed, naming
 * {@code spec.ingress[0].from[2]} of the NetworkPolicy, not the ExecutorCluster's field), while
 * the cluster's other changes waited behind it. Now the API server refuses the ExecutorCluster,
 * naming the field ({@code spec.networkPolicy.from[0]: ...}).
 *
 * <p>Lists and strings are bounded, so the rules stay within the API server's CEL cost budget
 * (it refuses a CRD whose rules could cost more on the largest object). The CIDR functions
 * ({@code isCIDR}, {@code cidr}) are Kubernetes' CEL library, which the API server takes in a new
 * rule from 1.31 (the chart's kubeVersion).
 */
final class NetworkPolicySchema {
    static final long MAX_ENTRIES = 32;
    /** Lists nested in egress rules: the cost budget multiplies their bounds. */
    static final long MAX_NESTED = 16;
    static final long MAX_EXCEPT = 8;
    /** An IANA service name, as a named port. */
    static final long MAX_PORT_NAME = 15;
    /** The longest IPv6 CIDR is 43 characters. */
    static final long MAX_CIDR_LENGTH = 64;
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

    private NetworkPolicySchema() {
    }

    static void complete(JSONSchemaProps spec) {
        JSONSchemaProps networkPolicy = SchemaCompletions.child(spec, "networkPolicy");
        JSONSchemaProps from = SchemaCompletions.child(networkPolicy, "from");
        from.setMaxItems(MAX_ENTRIES);
        peer(SchemaCompletions.items(from));

        JSONSchemaProps egress = SchemaCompletions.child(networkPolicy, "egress");
        egress.setMaxItems(MAX_NESTED);
        JSONSchemaProps rule = SchemaCompletions.items(egress);
        JSONSchemaProps to = SchemaCompletions.child(rule, "to");
        to.setMaxItems(MAX_NESTED);
        peer(SchemaCompletions.items(to));
        JSONSchemaProps ports = SchemaCompletions.child(rule, "ports");
        ports.setMaxItems(MAX_NESTED);
        port(SchemaCompletions.items(ports));
    }

    private static void peer(JSONSchemaProps peer) {
        addRules(peer,
                rule("has(self.podSelector) || has(self.namespaceSelector) || has(self.ipBlock)",
                        "a peer needs podSelector, namespaceSelector or ipBlock", null),
                rule("!has(self.ipBlock) || !(has(self.podSelector) || has(self.namespaceSelector))",
                        "ipBlock cannot be given with podSelector or namespaceSelector in the same peer: make them two peers",
                        ".ipBlock"));
        JSONSchemaProps ipBlock = SchemaCompletions.child(peer, "ipBlock");
        ipBlock.setRequired(List.of("cidr"));
        JSONSchemaProps cidr = SchemaCompletions.child(ipBlock, "cidr");
        cidr.setMaxLength(MAX_CIDR_LENGTH);
        addRules(cidr, rule("isCIDR(self)", "ipBlock.cidr must be a CIDR such as 10.0.0.0/16 or 2001:db8::/32", null));
        JSONSchemaProps except = SchemaCompletions.child(ipBlock, "except");
        except.setMaxItems(MAX_EXCEPT);
        SchemaCompletions.items(except).setMaxLength(MAX_CIDR_LENGTH);
        addRules(ipBlock, rule("!has(self.except) || !isCIDR(self.cidr) || self.except.all(e, isCIDR(e)"
                        + " && cidr(self.cidr).containsCIDR(e) && cidr(e).prefixLength() > cidr(self.cidr).prefixLength())",
                "every ipBlock.except entry must be a CIDR strictly inside ipBlock.cidr", ".except"));
        selector(SchemaCompletions.child(peer, "podSelector"));
        selector(SchemaCompletions.child(peer, "namespaceSelector"));
    }

    private static void selector(JSONSchemaProps selector) {
        JSONSchemaProps labels = SchemaCompletions.child(selector, "matchLabels");
        labels.setMaxProperties(MAX_ENTRIES);
        JSONSchemaProps value = labels.getAdditionalProperties().getSchema();
        value.setMaxLength(63L);
        value.setPattern(LABEL_VALUE);
        addRules(labels, rule("self.all(k, k.matches('" + LABEL_KEY + "') && " + LABEL_KEY_PREFIX_FITS + ")",
                LABEL_KEY_MESSAGE, null));
        JSONSchemaProps expressions = SchemaCompletions.child(selector, "matchExpressions");
        expressions.setMaxItems(MAX_ENTRIES);
        JSONSchemaProps requirement = SchemaCompletions.items(expressions);
        JSONSchemaProps key = SchemaCompletions.child(requirement, "key");
        key.setMaxLength(317L); // a 253-character prefix, '/', a 63-character name
        key.setPattern(LABEL_KEY);
        addRules(key, rule("[self].all(k, " + LABEL_KEY_PREFIX_FITS + ")", LABEL_KEY_MESSAGE, null));
        SchemaCompletions.child(requirement, "operator").setEnum(enumOf("In", "NotIn", "Exists", "DoesNotExist"));
        JSONSchemaProps values = SchemaCompletions.child(requirement, "values");
        values.setMaxItems(MAX_ENTRIES);
        SchemaCompletions.items(values).setMaxLength(63L);
        SchemaCompletions.items(values).setPattern(LABEL_VALUE);
        requirement.setRequired(List.of("key", "operator"));
        addRules(requirement, rule("self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0"
                        + " : !has(self.values) || size(self.values) == 0",
                "operators In and NotIn need values; Exists and DoesNotExist take none", ".values"));
    }

    private static void port(JSONSchemaProps port) {
        SchemaCompletions.child(port, "protocol").setEnum(enumOf("TCP", "UDP", "SCTP"));
        JSONSchemaProps endPort = SchemaCompletions.child(port, "endPort");
        endPort.setMinimum(1.0);
        endPort.setMaximum(65535.0);
        JSONSchemaProps number = SchemaCompletions.child(port, "port");
        number.setMaxLength(MAX_PORT_NAME); // applies to names
        addRules(number, rule("type(self) == int ? self >= 1 && self <= 65535"
                        + " : self.matches('^[a-z0-9]([a-z0-9-]*[a-z0-9])?$') && self.matches('[a-z]')"
                        + " && !self.contains('--')",
                "port must be a number from 1 to 65535, or a port name (at most 15 lower-case letters, digits and"
                        + " single '-', with a letter)", null));
        addRules(port, rule("!has(self.endPort) || (has(self.port) && type(self.port) == int && self.endPort >= self.port)",
                "endPort needs a numeric port, and must not be below it", ".endPort"));
    }

    private static ValidationRule rule(String rule, String message, String fieldPath) {
        return new ValidationRuleBuilder().withRule(rule).withMessage(message).withFieldPath(fieldPath).build();
    }

    private static void addRules(JSONSchemaProps schema, ValidationRule... rules) {
        List<ValidationRule> all = new ArrayList<>(schema.getXKubernetesValidations() == null ? List.of()
                : schema.getXKubernetesValidations());
        all.addAll(List.of(rules));
        schema.setXKubernetesValidations(all);
    }

    private static List<com.fasterxml.jackson.databind.JsonNode> enumOf(String... values) {
        var nodes = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
        return java.util.Arrays.stream(values).<com.fasterxml.jackson.databind.JsonNode>map(nodes::textNode).toList();
    }
}
