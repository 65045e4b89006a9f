package io.drover.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
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
@AdditionalPrinterColumn(name = "Desired", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.desiredReplicas",
        getDescription = "Executor nodes wanted now (spec.replicas, or the autoscaler's choice)")
@AdditionalPrinterColumn(name = "Ready Nodes", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.readyReplicas",
        getDescription = "Executor nodes that are ready")
@AdditionalPrinterColumn(name = "Lock Mode", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".spec.lockMode")
@AdditionalPrinterColumn(name = "Threads", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".spec.threads")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE, jsonPath = ".metadata.creationTimestamp")
public class ExecutorCluster extends CustomResource<ExecutorClusterSpec, ExecutorClusterStatus> implements Namespaced {
    public static final String GROUP = "drover.io";
    public static final String VERSION = "v1alpha1";
}
