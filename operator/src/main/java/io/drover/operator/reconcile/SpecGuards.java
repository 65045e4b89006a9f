package io.drover.operator.reconcile;

import io.drover.contract.FlowablePool;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.operator.api.v1alpha1.ExtraEnvVar;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The trust guards of the CRD (jvmOptions, env), and its rules whose breach would make the new
 * executors refuse to start (the Flowable pool), checked again by the operator before it runs
 * anything: Helm installs a CRD once and never upgrades it, so a cluster may still carry a CRD
 * without the newest rules, and the API server would let through what they refuse; and a cluster
 * applied before a rule was tightened keeps its values (the API server ratchets unchanged fields).
 * Refused, nothing is changed: the running executors go on as they are.
 */
final class SpecGuards {
    private static final Pattern JVM_ALLOWED = Pattern.compile(ExecutorClusterSpec.JVM_OPTIONS_ALLOWED);
    private static final Pattern JVM_REFUSED = Pattern.compile(ExecutorClusterSpec.JVM_XX_REFUSED);

    private SpecGuards() {
    }

    /** The first refused field and why, if any. */
    static Optional<String> refusal(ExecutorClusterSpec spec) {
        if (spec == null) {
            return Optional.of("spec: required (the ExecutorCluster has none; at least spec.database)");
        }
        if (spec.jvmOptions != null && (!JVM_ALLOWED.matcher(spec.jvmOptions).matches()
                || JVM_REFUSED.matcher(spec.jvmOptions).find())) {
            return Optional.of("spec.jvmOptions: " + ExecutorClusterSpec.JVM_OPTIONS_MESSAGE);
        }
        if (spec.env != null) {
            for (int i = 0; i < spec.env.size(); i++) {
                ExtraEnvVar e = spec.env.get(i);
                if (e.valueFrom != null && (e.value != null || e.valueFrom.secretKeyRef == null)) {
                    return Optional.of("spec.env[" + i + "].valueFrom: give either value or valueFrom.secretKeyRef, not both");
                }
                if (e.name != null && ExtraEnvVar.refusedLogging(e.name)) {
                    return Optional.of("spec.env[" + i + "].name: " + e.name + ": " + ExtraEnvVar.LOGGING_MESSAGE);
                }
                if (e.name == null || ExtraEnvVar.refused(e.name)) {
                    return Optional.of("spec.env[" + i + "].name: " + e.name + " is set by the operator from the"
                            + " ExecutorCluster's own fields, or would change how the executor reads them: set the field instead");
                }
                if (ExtraEnvVar.expands(e.value)) {
                    return Optional.of("spec.env[" + i + "].value: " + ExtraEnvVar.EXPRESSION_MESSAGE);
                }
            }
        }
        // The keys of jobTimeouts reach the executor inside one environment value (JSON); the CRD
        // cannot afford a rule over map keys of no bounded length, so the operator checks them.
        if (spec.jobTimeouts != null && spec.jobTimeouts.keySet().stream().anyMatch(ExtraEnvVar::expands)) {
            return Optional.of("spec.jobTimeouts: job types may not contain '${': the executor's configuration would"
                    + " expand it to another setting's value");
        }
        // Refused here rather than rolled out: every new pod would fail its start-up check (a roll
        // stuck at its first pod, one node fewer) while the old pods run fine.
        if (spec.engine == Engine.Flowable && spec.database != null && spec.database.maxPoolSize != null) {
            int threads = spec.threads == null ? Integer.parseInt(SettingDefaults.THREADS) : spec.threads;
            if (spec.database.maxPoolSize < FlowablePool.minimumFor(threads)) {
                return Optional.of("spec.database.maxPoolSize: must be at least threads + " + FlowablePool.SPARE_CONNECTIONS
                        + " = " + FlowablePool.minimumFor(threads) + " with engine Flowable (each running job holds a connection)");
            }
        }
        return Optional.empty();
    }
}
