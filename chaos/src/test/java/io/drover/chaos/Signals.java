package io.drover.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Signals to processes of the campaign (nodes, the database server), as kill sends them. */
final class Signals {
    private Signals() {
    }

    /**
     * kill -NAME of each process; one that is gone already is skipped (kill reports it and signals
     * the rest).
     *
     * @return kill's exit status: 0 when every process was signalled
     */
    static int send(String name, List<Long> pids) throws Exception {
        if (pids.isEmpty()) {
            return 0;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + name));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        return new ProcessBuilder(command).inheritIO().start().waitFor();
    }

    /**
     * kill -NAME of one process that must be there: a fault that was not delivered would leave its
     * scenario faultless, to pass on its accounting alone. Not an AssertionError: the scenario's
     * waits report theirs through the accounting, a fault that failed stops the scenario.
     */
    static void sendOne(String name, long pid) throws Exception {
        int status = send(name, List.of(pid));
        if (status != 0) {
            throw new IllegalStateException("kill -" + name + " " + pid + " exited with " + status);
        }
    }

    /** Waits until the process is stopped (state T in /proc): SIGSTOP took effect. */
    static void awaitStopped(long pid) throws Exception {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long until = System.nanoTime() + 2_000_000_000L;
        String state = "?";
        while (System.nanoTime() < until) {
            String s = Files.readString(stat);
            state = s.substring(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3);
            if (state.equals("T")) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("process " + pid + " not stopped after SIGSTOP (state " + state + ")");
    }
}
