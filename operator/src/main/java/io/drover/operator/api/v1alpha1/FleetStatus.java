package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import java.util.List;

/**
 * Live figures of the fleet, read by the operator from each executor's /q/drover/node every
 * figuresInterval (never from the database). Rates are over the last minute.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FleetStatus {
    @JsonPropertyDescription("When these figures were read (RFC 3339).")
    public String observedAt;

    @JsonPropertyDescription("Executor nodes that answered.")
    public Integer nodesReporting;

    @JsonPropertyDescription("Due jobs no node holds, whole cluster (capped at 1,000,000).")
    public Long dueBacklog;

    @JsonPropertyDescription("How late the oldest due job no node holds is, e.g. 1m30s (0s when none).")
    public String lag;

    @JsonPropertyDescription("Jobs finished per second by the whole fleet over the last minute.")
    public Double jobsPerSecond;

    @JsonPropertyDescription("Workers running a job, whole fleet.")
    public Integer busyThreads;

    @JsonPropertyDescription("Workers, whole fleet.")
    public Integer threads;

    @JsonPropertyDescription("Jobs acquired and waiting for a worker, whole fleet.")
    public Integer queued;

    @JsonPropertyDescription("Queue capacity (queueSize x nodes).")
    public Integer queueSize;

    @JsonPropertyDescription("Dead letters, whole cluster (capped at 10,000).")
    public Long deadLetters;

    @JsonPropertyDescription("Per executor node.")
    public List<Node> nodes;

    /** One node's figures. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Node {
        @JsonPropertyDescription("Pod name (the executor's node name).")
        public String name;

        @JsonPropertyDescription("Jobs finished per second over the last minute.")
        public Double jobsPerSecond;

        public Integer busyThreads;
        public Integer threads;
        public Integer queued;
        public Integer queueSize;
    }
}
