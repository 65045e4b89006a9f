package io.drover.chaos;

import java.util.ArrayList;
import java.util.List;

/** Signals to processes of the campaign (nodes, the database server), as kill sends them. */
final class Signals {
    private Signals() {
    }

    /** kill -NAME of each process; one that is gone already is skipped (kill reports it and signals the rest). */
    static void send(String name, List<Long> pids) throws Exception {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + name));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        new ProcessBuilder(command).inheritIO().start().waitFor();
    }
}
