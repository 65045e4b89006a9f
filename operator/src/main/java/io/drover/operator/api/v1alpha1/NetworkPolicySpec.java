package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;

import java.util.List;

/**
 * The executors' NetworkPolicy. Ingress: the HTTP port (API, metrics; kubelet probes are not
 * subject to NetworkPolicy) only from pods labelled {@code drover.io/client=<cluster name>} in
 * the cluster's namespace, plus {@code from}. Egress: DNS, the database port (to its IP when
 * database.host is one), plus {@code egress}. Enforced only by a CNI that implements
 * NetworkPolicy (Calico, Cilium, the VPC CNI with network policies on).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkPolicySpec {
    @Default("true")
    @JsonPropertyDescription("Create a NetworkPolicy for the executor pods.")
    public Boolean enabled;

    @JsonPropertyDescription("More peers that may reach the HTTP port (API and /q/metrics), e.g. your Prometheus's namespace."
            + " Pods of the cluster's namespace labelled drover.io/client=<cluster name> always may.")
    public List<NetworkPolicyPeer> from;

    @JsonPropertyDescription("More egress rules, e.g. to the hosts http jobs call (drover.http.allowedHosts)."
            + " DNS and the database port are always allowed.")
    public List<NetworkPolicyEgressRule> egress;
}
