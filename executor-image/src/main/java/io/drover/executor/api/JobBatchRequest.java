package io.drover.executor.api;

import java.util.List;

/** Many jobs in one call, written in one transaction: all of them or none. */
public record JobBatchRequest(List<JobRequest> jobs) {
}
