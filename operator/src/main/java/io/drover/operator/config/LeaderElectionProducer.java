package io.drover.operator.config;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

import java.util.Optional;

/**
 * Leader election over a coordination.k8s.io Lease, so a rolling update or a second replica of
 * the operator never has two reconcilers writing the same StatefulSet. The SDK only uses this
 * bean in the prod profile; tests run a single operator.
 */
@ApplicationScoped
public class LeaderElectionProducer {

    // Dependent scope: the producer may return null (leader election disabled).
    @Produces
    @Dependent
    LeaderElectionConfiguration leaderElection(OperatorConfig config) {
        OperatorConfig.LeaderElection le = config.leaderElection();
        if (!le.enabled()) {
            return null;
        }
        var builder = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(le.leaseName());
        le.leaseNamespace().or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")))
                .ifPresent(builder::withLeaseNamespace);
        // On losing the lease the SDK exits the process (its default): another replica reconciles
        // now, and Kubernetes restarts this one as a standby.
        return builder.build();
    }
}
