package io.drover.operator.api.v1alpha1;

/**
 * The job engine an ExecutorCluster's nodes run: Drover's own executor (its job table,
 * executor-image/), or Flowable's async executor over a Flowable process engine's job tables
 * (flowable-executor/): the same settings, mapped onto Flowable's properties (docs/engines.md).
 */
public enum Engine {
    Drover, Flowable
}
