package io.drover.operator.api.schema;

import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRuleBuilder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What the generated CRD schema cannot say from annotations, because the fields are library
 * types (fabric8's Quantity, NetworkPolicyPeer, ...) that an annotation cannot reach: completed
 * here, at build time ({@code quarkus.operator-sdk.crd.post-processor}), so the API server
 * refuses such a value naming the field instead of the operator failing on it later.
 * {@code ExecutorClusterSchemaTest} checks the result on a real kube-apiserver.
 */
public class SchemaCompletions implements CRDPostProcessor {
    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
        if (!(crd instanceof CustomResourceDefinition definition)) {
            return crd;
        }
        for (CustomResourceDefinitionVersion version : definition.getSpec().getVersions()) {
            JSONSchemaProps spec = child(version.getSchema().getOpenAPIV3Schema(), "spec");
            QuantitySchema.complete(spec);
            NetworkPolicySchema.complete(spec);
            PlacementSchema.complete(spec);
        }
        return crd;
    }

    /** The property {@code path} (dot-separated) of {@code parent}, or an error naming what the generator no longer writes. */
    static JSONSchemaProps child(JSONSchemaProps parent, String path) {
        JSONSchemaProps at = parent;
        for (String name : path.split("\\.")) {
            Map<String, JSONSchemaProps> properties = at == null ? null : at.getProperties();
            at = properties == null ? null : properties.get(name);
            if (at == null) {
                throw new IllegalStateException("the generated CRD has no " + path + " (at " + name + "): the generator's"
                        + " output changed; update " + SchemaCompletions.class.getName());
            }
        }
        return at;
    }

    /** The schema of {@code list}'s items. */
    static JSONSchemaProps items(JSONSchemaProps list) {
        if (list.getItems() == null || list.getItems().getSchema() == null) {
            throw new IllegalStateException("a list of the generated CRD has no item schema: update " + SchemaCompletions.class.getName());
        }
        return list.getItems().getSchema();
    }

    /** A CEL rule; {@code fieldPath} (relative, e.g. ".values") names the field its message is about, or null for the schema's own. */
    static ValidationRule rule(String rule, String message, String fieldPath) {
        return new ValidationRuleBuilder().withRule(rule).withMessage(message).withFieldPath(fieldPath).build();
    }

    /** Adds {@code rules} after the ones {@code schema} has. */
    static void addRules(JSONSchemaProps schema, ValidationRule... rules) {
        List<ValidationRule> all = new ArrayList<>(schema.getXKubernetesValidations() == null ? List.of()
                : schema.getXKubernetesValidations());
        all.addAll(List.of(rules));
        schema.setXKubernetesValidations(all);
    }

    static List<com.fasterxml.jackson.databind.JsonNode> enumOf(String... values) {
        var nodes = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
        return Arrays.stream(values).<com.fasterxml.jackson.databind.JsonNode>map(nodes::textNode).toList();
    }
}
