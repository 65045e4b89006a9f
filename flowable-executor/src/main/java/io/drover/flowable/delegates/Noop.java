package io.drover.flowable.delegates;

import org.flowable.engine.delegate.DelegateExecution;
import org.flowable.engine.delegate.JavaDelegate;

/** The benchmark's no-op service task (processes/async-noop.bpmn20.xml): the cost of the executor alone. */
public class Noop implements JavaDelegate {
    @Override
    public void execute(DelegateExecution execution) {
        // nothing: the job's own acquisition, run and completion are what is measured
    }
}
