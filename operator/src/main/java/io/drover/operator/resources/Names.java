package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;

/** Names of the objects an ExecutorCluster owns, all derived from its own name. */
public final class Names {
    private Names() {
    }

    public static String statefulSet(ExecutorCluster ec) {
        return ec.getMetadata().getName();
    }

    /** Headless: stable pod DNS names (executor-0.&lt;name&gt;-nodes). */
    public static String headlessService(ExecutorCluster ec) {
        return ec.getMetadata().getName() + "-nodes";
    }

    /** API and /q/metrics of all ready executors. */
    public static String service(ExecutorCluster ec) {
        return ec.getMetadata().getName();
    }

    /** The settings ConfigMap operators before 2026-11-28 wrote: deleted once no pod reads it. */
    public static String legacySettingsConfigMap(ExecutorCluster ec) {
        return ec.getMetadata().getName() + "-config";
    }

    public static String disruptionBudget(ExecutorCluster ec) {
        return ec.getMetadata().getName();
    }

    public static String networkPolicy(ExecutorCluster ec) {
        return ec.getMetadata().getName();
    }

    public static String scaledObject(ExecutorCluster ec) {
        return ec.getMetadata().getName();
    }

    /** The API tokens the operator generates when the spec names none. */
    public static String apiTokens(ExecutorCluster ec) {
        return ec.getMetadata().getName() + "-api";
    }

    /** The key of the roll hash's fingerprint of Secret values (RollKey). */
    public static String rollKey(ExecutorCluster ec) {
        return ec.getMetadata().getName() + "-roll-key";
    }

    public static String triggerAuthentication(ExecutorCluster ec) {
        return ec.getMetadata().getName() + "-db";
    }
}
