package io.drover.operator.testing;

import io.fabric8.kubernetes.client.Config;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.HashMap;
import java.util.Map;

/** Points the operator under test at the shared {@link TestCluster}, as the chart's ServiceAccount. */
public class TestClusterResource implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
        Config c = TestCluster.get().config();
        Map<String, String> props = new HashMap<>();
        props.put("quarkus.kubernetes-client.api-server-url", c.getMasterUrl());
        props.put("quarkus.kubernetes-client.trust-certs", "false");
        // kube-api-test's kubeconfig names certificate files, or embeds them: pass on either.
        putEither(props, "ca-cert", c.getCaCertFile(), c.getCaCertData());
        // Not the admin's certificate: the ServiceAccount the chart makes, under the chart's RBAC
        // and admission policies, so a write the chart does not allow fails here too.
        props.put("quarkus.kubernetes-client.token", TestCluster.get().operatorToken());
        return props;
    }

    private static void putEither(Map<String, String> props, String name, String file, String data) {
        if (file != null) {
            props.put("quarkus.kubernetes-client." + name + "-file", file);
        } else if (data != null) {
            props.put("quarkus.kubernetes-client." + name + "-data", data);
        }
    }

    @Override
    public void stop() {
        // The cluster lives for the whole test JVM (shared with the schema tests).
    }
}
