package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Who may talk to the executors and whom they may talk to (see {@link NetworkPolicySpec}).
 * The database rule names the IP when database.host is an address; a host name cannot be put
 * in a NetworkPolicy, so then the port is open to any destination (RDS endpoints resolve to
 * changing addresses; narrow it with a CNI's FQDN policy if you have one).
 */
public final class ExecutorNetworkPolicy {
    private static final Pattern IPV4 = Pattern.compile("^\\d{1,3}(\\.\\d{1,3}){3}$");

    private ExecutorNetworkPolicy() {
    }

    public static boolean wanted(ExecutorCluster ec) {
        NetworkPolicySpec n = ec.getSpec().networkPolicy;
        return n == null || n.enabled == null || n.enabled;
    }

    /**
     * @param operatorNamespace where the operator runs, when known: its pods may read the
     *                          executors' figures (GET /q/drover/node) for the cluster's status
     * @param scrapeNamespaces  where Prometheus runs: its pods may scrape /q/metrics
     */
    public static NetworkPolicy build(ExecutorCluster ec, java.util.Optional<String> operatorNamespace,
                                      List<String> scrapeNamespaces) {
        NetworkPolicySpec n = ec.getSpec().networkPolicy != null ? ec.getSpec().networkPolicy : new NetworkPolicySpec();
        List<NetworkPolicyPeer> clients = new ArrayList<>();
        clients.add(new NetworkPolicyPeerBuilder().withNewPodSelector()
                .addToMatchLabels(Labels.CLIENT, ec.getMetadata().getName()).endPodSelector().build());
        operatorNamespace.ifPresent(ns -> clients.add(new NetworkPolicyPeerBuilder()
                .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", ns).endNamespaceSelector()
                .withNewPodSelector().addToMatchLabels(Labels.NAME, Labels.OPERATOR).endPodSelector().build()));
        if (!scrapeNamespaces.isEmpty()) {
            clients.add(new NetworkPolicyPeerBuilder().withNewNamespaceSelector().addNewMatchExpression()
                    .withKey("kubernetes.io/metadata.name").withOperator("In").withValues(scrapeNamespaces).endMatchExpression()
                    .endNamespaceSelector().build());
        }
        if (n.from != null) {
            clients.addAll(n.from);
        }
        List<NetworkPolicyEgressRule> egress = new ArrayList<>();
        egress.add(new NetworkPolicyEgressRuleBuilder()
                .addNewPort().withProtocol("UDP").withPort(new IntOrString(53)).endPort()
                .addNewPort().withProtocol("TCP").withPort(new IntOrString(53)).endPort()
                .build());
        var db = ec.getSpec().database;
        var toDatabase = new NetworkPolicyEgressRuleBuilder()
                .addNewPort().withProtocol("TCP").withPort(new IntOrString(db.portOrDefault())).endPort();
        if (isIp(db.host)) {
            toDatabase.addNewTo().withNewIpBlock().withCidr(db.host.contains(":") ? db.host + "/128" : db.host + "/32")
                    .endIpBlock().endTo();
        }
        egress.add(toDatabase.build());
        if (n.egress != null) {
            egress.addAll(n.egress);
        }
        return new NetworkPolicyBuilder()
                .withNewMetadata().withName(Names.networkPolicy(ec)).withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec)).endMetadata()
                .withNewSpec()
                .withNewPodSelector().withMatchLabels(Labels.selector(ec)).endPodSelector()
                .withPolicyTypes("Ingress", "Egress")
                .addNewIngress()
                .addNewPort().withProtocol("TCP").withPort(new IntOrString("http")).endPort()
                .withFrom(clients)
                .endIngress()
                .withEgress(egress)
                .endSpec()
                .build();
    }

    static boolean isIp(String host) {
        // The CRD's host pattern allows letters, digits, '.', ':', '_' and '-': a ':' means IPv6.
        return IPV4.matcher(host).matches() || host.contains(":");
    }
}
