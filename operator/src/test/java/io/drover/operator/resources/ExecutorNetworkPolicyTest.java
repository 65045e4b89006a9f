package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may reach the executors' HTTP port: clients, the operator, Prometheus's namespaces, the spec's peers. */
class ExecutorNetworkPolicyTest {
    private static ExecutorCluster cluster(String extraSpec) {
        ExecutorCluster ec = Clusters.parse(Clusters.yaml("jobs", extraSpec));
        ec.getMetadata().setNamespace("team");
        return ec;
    }

    private static List<NetworkPolicyPeer> peers(NetworkPolicy np) {
        return np.getSpec().getIngress().get(0).getFrom();
    }

    @Test
    void prometheussNamespacesAreAdmittedBesideTheClientsAndTheOperator() {
        NetworkPolicy np = ExecutorNetworkPolicy.build(cluster("networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/8}}]}"),
                Optional.of("drover-system"), List.of("monitoring", "observability"));
        List<NetworkPolicyPeer> from = peers(np);
        assertThat(from).hasSize(4);
        assertThat(from.get(0).getPodSelector().getMatchLabels()).containsEntry(Labels.CLIENT, "jobs");
        assertThat(from.get(1).getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "drover-system");
        var scrapers = from.get(2);
        assertThat(scrapers.getPodSelector()).as("every pod of those namespaces").isNull();
        assertThat(scrapers.getNamespaceSelector().getMatchExpressions()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("kubernetes.io/metadata.name");
            assertThat(e.getOperator()).isEqualTo("In");
            assertThat(e.getValues()).containsExactly("monitoring", "observability");
        });
        assertThat(from.get(3).getIpBlock().getCidr()).isEqualTo("10.0.0.0/8");
    }

    @Test
    void noScrapeNamespacesAddNoPeer() {
        assertThat(peers(ExecutorNetworkPolicy.build(cluster(""), Optional.empty(), List.of()))).hasSize(1);
    }
}
