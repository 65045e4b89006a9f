package io.drover.executor.engine;

/**
 * Lets jobs run side by side, except a suspect that runs alone. A job that was running on
 * nodes that died {@code maxCrashes - 1} times gets its decisive run with no other job running
 * on its node: if the node dies again, the crash is that job's alone and it is dead-lettered as
 * poison, while innocent jobs that happened to run beside a node-killer are never blamed for it.
 *
 * <p>Not tied to threads (unlike a ReadWriteLock): a worker stuck in a handler that ignores
 * interrupts is given up by the timeout watch, which leaves the gate on its behalf.
 */
final class ExecutionGate {
    private int running;
    private boolean soloRunning;
    private int soloWaiting;

    synchronized void enter(boolean solo) throws InterruptedException {
        if (solo) {
            soloWaiting++;
            try {
                while (running > 0 || soloRunning) {
                    wait();
                }
                soloRunning = true;
            } finally {
                soloWaiting--;
                notifyAll(); // an interrupted solo waiter no longer holds back the others
            }
        } else {
            while (soloRunning || soloWaiting > 0) {
                wait();
            }
            running++;
        }
    }

    synchronized void exit(boolean solo) {
        if (solo) {
            soloRunning = false;
        } else {
            running--;
        }
        notifyAll();
    }
}
