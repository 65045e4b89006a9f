package io.drover.operator.config;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import org.jboss.logging.Logger;

import java.util.Optional;

/**
 * Leader election over a coordination.k8s.io Lease, so a rolling update or a second replica of
 * the operator never has two reconcilers writing the same StatefulSet. The SDK only uses this
 * bean in the prod profile; tests run a single operator.
 *
 * <p>The leader makes its own Pod the owner of the Lease. When that Pod is gone (rollout,
 * scale-in, {@code helm uninstall}) the garbage collector deletes the Lease: a standby takes
 * over without waiting for the lease to expire, and an uninstalled operator leaves no Lease
 * behind. (Deleting it from a shutdown hook does not work: Helm removes the operator's RBAC
 * before its pod has stopped.)
 */
@ApplicationScoped
public class LeaderElectionProducer {
    private static final Logger LOG = Logger.getLogger(LeaderElectionProducer.class);

    // Dependent scope: the producer may return null (leader election disabled).
    @Produces
    @Dependent
    LeaderElectionConfiguration leaderElection(OperatorConfig config, KubernetesClient client) {
        OperatorConfig.LeaderElection le = config.leaderElection();
        if (!le.enabled()) {
            return null;
        }
        Optional<String> namespace = le.leaseNamespace().or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")));
        var builder = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(le.leaseName());
        namespace.ifPresent(builder::withLeaseNamespace);
        String podName = System.getenv("POD_NAME");
        String podUid = System.getenv("POD_UID");
        if (namespace.isPresent() && podName != null && podUid != null) {
            builder.withLeaderCallbacks(new LeaderCallbacks(
                    () -> ownLease(client, namespace.get(), le.leaseName(), podName, podUid),
                    () -> { },
                    leader -> { }));
        }
        // On losing the lease the SDK exits the process (its default): another replica reconciles
        // now, and Kubernetes restarts this one as a standby.
        return builder.build();
    }

    static void ownLease(KubernetesClient client, String namespace, String lease, String podName, String podUid) {
        String patch = """
                {"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"%s","uid":"%s"}]}}"""
                .formatted(podName, podUid);
        try {
            client.leases().inNamespace(namespace).withName(lease).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        } catch (RuntimeException e) {
            // Leadership works without it; the Lease then outlives this pod until it expires.
            LOG.warnf("could not make pod %s the owner of Lease %s/%s: %s", podName, namespace, lease, e.getMessage());
        }
    }
}
