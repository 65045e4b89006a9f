package io.drover.operator.api.schema;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

import java.util.List;

import static io.drover.operator.api.schema.SchemaCompletions.addRules;
import static io.drover.operator.api.schema.SchemaCompletions.enumOf;
import static io.drover.operator.api.schema.SchemaCompletions.rule;

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
        LabelSchema.selector(SchemaCompletions.child(peer, "podSelector"), MAX_ENTRIES);
        LabelSchema.selector(SchemaCompletions.child(peer, "namespaceSelector"), MAX_ENTRIES);
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
}
