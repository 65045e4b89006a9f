package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The recommended app.kubernetes.io labels on everything the operator creates. */
public final class Labels {
    public static final String NAME = "app.kubernetes.io/name";
    public static final String INSTANCE = "app.kubernetes.io/instance";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String OPERATOR = "drover-operator";
    /** The informers only cache objects carrying this label. */
    public static final String MANAGED_SELECTOR = MANAGED_BY + "=" + OPERATOR;
    /**
     * A Secret an ExecutorCluster names must carry this label with value "true": whoever may
     * write Secrets declares it usable by ExecutorCluster authors of the namespace, who decide
     * where the executors connect with it (docs/security.md). Without it, an author could send
     * any Secret of the namespace to a host of their choosing.
     */
    public static final String SECRET_OPT_IN = "drover.io/executor-secret";
    /** Pods with {@code drover.io/client=<cluster name>} may call that cluster's API (ExecutorNetworkPolicy). */
    public static final String CLIENT = "drover.io/client";

    private Labels() {
    }

    /** Selects the executor pods of one cluster; immutable once a StatefulSet exists. */
    public static Map<String, String> selector(ExecutorCluster ec) {
        Map<String, String> m = new TreeMap<>();
        m.put(NAME, "drover-executor");
        m.put(INSTANCE, ec.getMetadata().getName());
        return m;
    }

    public static Map<String, String> all(ExecutorCluster ec) {
        Map<String, String> m = selector(ec);
        m.put(COMPONENT, "executor");
        m.put(MANAGED_BY, OPERATOR);
        return m;
    }

    public static String selectorString(ExecutorCluster ec) {
        return selector(ec).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
