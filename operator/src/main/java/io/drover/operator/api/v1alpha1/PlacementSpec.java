package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;

import java.util.List;
import java.util.Map;

/**
 * Where executor pods may run. Executors are CPU-bound dispatchers next to a database: the
 * default keeps them on compute-optimised c5 nodes, one pod per node where possible.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PlacementSpec {
    @Default("[\"c5.large\",\"c5.xlarge\",\"c5.2xlarge\",\"c5.4xlarge\",\"c5.9xlarge\",\"c5.12xlarge\",\"c5.18xlarge\",\"c5.24xlarge\",\"c5.metal\"]")
    @JsonPropertyDescription("Allowed values of the node label node.kubernetes.io/instance-type (a required node affinity). Empty list: any instance type. Ignored when affinity is set.")
    // Label values (a required node affinity's values are checked as such): one that is not was
    // admitted, and every write of the StatefulSet refused, naming its affinity, not this field.
    @Size(max = 50)
    public List<@Size(max = 63) @Pattern("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$") String> instanceTypes;

    @JsonPropertyDescription("Extra node selector of the executor pods.")
    public Map<String, String> nodeSelector;

    @JsonPropertyDescription("Affinity of the executor pods; replaces the instanceTypes node affinity when set.")
    public Affinity affinity;

    @JsonPropertyDescription("Tolerations of the executor pods (e.g. for a tainted c5 node group).")
    public List<Toleration> tolerations;

    @Default("true")
    @JsonPropertyDescription("Spread executor pods across nodes (topology spread on kubernetes.io/hostname, best effort).")
    public Boolean spreadAcrossNodes;
}
