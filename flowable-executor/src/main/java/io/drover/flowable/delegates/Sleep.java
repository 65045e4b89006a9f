package io.drover.flowable.delegates;

import org.flowable.common.engine.api.FlowableIllegalArgumentException;
import org.flowable.engine.delegate.DelegateExecution;
import org.flowable.engine.delegate.JavaDelegate;

/**
 * Sleeps the process variable {@code ms} (default 100): the benchmark's "100 ms job"
 * (processes/async-sleep.bpmn20.xml), against which a fleet's throughput is compared with its
 * theoretical maximum, nodes x threads x 10 per second.
 */
public class Sleep implements JavaDelegate {
    static final long DEFAULT_MS = 100;

    @Override
    public void execute(DelegateExecution execution) {
        Object value = execution.getVariable("ms");
        long ms;
        if (value == null) {
            ms = DEFAULT_MS;
        } else if (value instanceof Number n) {
            ms = n.longValue();
        } else {
            throw new FlowableIllegalArgumentException("variable ms must be a number of milliseconds, got " + value);
        }
        if (ms < 0 || ms > 3_600_000) {
            throw new FlowableIllegalArgumentException("variable ms must be between 0 and 3600000, got " + ms);
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
