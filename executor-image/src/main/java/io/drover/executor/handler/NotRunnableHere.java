package io.drover.executor.handler;

/**
 * This node cannot run the job as its own settings stand, where another node's may let it (a
 * URL or an allowed host a rolling change is adding): the job is handed back for another node,
 * as a job of a type this node has no handler for is, and dead-lettered with the reason only
 * after the nodes that took it handed it back for about an hour. Not a failed attempt: the job
 * did nothing. Throw it before the job has any effect.
 */
public class NotRunnableHere extends Exception {
    public NotRunnableHere(String message) {
        super(message);
    }
}
