package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

import java.util.Map;

/** The two Services of an executor fleet. */
public final class ExecutorServices {
    private ExecutorServices() {
    }

    /** Headless, for the StatefulSet's stable pod names; lists pods before they are ready. */
    public static Service headless(ExecutorCluster ec) {
        return new ServiceBuilder()
                .withNewMetadata().withName(Names.headlessService(ec)).withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec)).endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Labels.selector(ec))
                .addNewPort().withName("http").withPort(ExecutorStatefulSet.HTTP_PORT).withNewTargetPort("http").endPort()
                .endSpec()
                .build();
    }

    /** The executors' HTTP API and Prometheus metrics (/q/metrics), over ready pods only. */
    public static Service api(ExecutorCluster ec) {
        return new ServiceBuilder()
                .withNewMetadata().withName(Names.service(ec)).withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec))
                .withAnnotations(Map.of("prometheus.io/scrape", "true",
                        "prometheus.io/port", String.valueOf(ExecutorStatefulSet.HTTP_PORT),
                        "prometheus.io/path", "/q/metrics"))
                .endMetadata()
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Labels.selector(ec))
                .addNewPort().withName("http").withPort(ExecutorStatefulSet.HTTP_PORT).withNewTargetPort("http").endPort()
                .endSpec()
                .build();
    }
}
