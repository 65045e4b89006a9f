package io.drover.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A fleet of Drover executor nodes working one PostgreSQL job table. The CRD in crds/ is
 * generated from this class and the spec/status classes beside it: change them, run
 * {@code make crds}, and commit the result.
 */
@Group(ExecutorCluster.GROUP)
@Version(ExecutorCluster.VERSION)
@ShortNames("ec")
@AdditionalPrinterColumn(name = "Nodes", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.nodes",
        getDescription = "Ready executor nodes / wanted ones")
@AdditionalPrinterColumn(name = "Lock Mode", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".spec.lockMode")
@AdditionalPrinterColumn(name = "Backlog", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.fleet.dueBacklog",
        getDescription = "Due jobs no node holds")
@AdditionalPrinterColumn(name = "Jobs/s", type = AdditionalPrinterColumn.Type.NUMBER, jsonPath = ".status.fleet.jobsPerSecond",
        getDescription = "Jobs finished per second over the last minute")
@AdditionalPrinterColumn(name = "Lag", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.fleet.lag",
        getDescription = "How late the oldest due job is")
@AdditionalPrinterColumn(name = "Bottleneck", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Bottleneck\")].reason")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
// The name becomes the StatefulSet's, whose pods carry a controller-revision-hash label of
// "<name>-<10-character hash>" (a label value: at most 63), and a Service's (a DNS-1035 label).
// Checked when the cluster is created (a name never changes): a cluster created before the rule
// keeps taking status writes, which a rule on the whole object would refuse (these rules sit at
// the root, so no ratcheting applies: the status is part of what they judge).
@ValidationRule(value = "oldSelf.hasValue() || (self.metadata.name.size() <= 52"
        + " && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))", optionalOldSelf = true,
        message = "metadata.name must be at most 52 characters of lower-case letters, digits and '-', starting with a letter:"
                + " it names the executors' StatefulSet, pods and Services")
// Without a spec there is no database to work: refused by the API server, naming the field;
// on an update only if the spec is being removed (a cluster stored without one, from before the
// rule, keeps taking status writes; the operator says Degraded SpecRefused).
@ValidationRule(value = "has(self.spec) || (oldSelf.hasValue() && !has(oldSelf.value().spec))", optionalOldSelf = true,
        fieldPath = ".spec", reason = "FieldValueRequired", message = "spec is required: at least spec.database")
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE, jsonPath = ".metadata.creationTimestamp")
public class ExecutorCluster extends CustomResource<ExecutorClusterSpec, ExecutorClusterStatus> implements Namespaced {
    public static final String GROUP = "drover.io";
    public static final String VERSION = "v1alpha1";
}
