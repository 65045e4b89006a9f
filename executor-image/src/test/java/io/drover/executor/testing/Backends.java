package io.drover.executor.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** PostgreSQL backends as faults act on them: a connection's backend, frozen (SIGSTOP) or ended. */
public final class Backends {
    private Backends() {
    }

    /** The backend process serving this connection. */
    public static long pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Sends the signal (STOP, CONT, ...) to a backend process; the test runs as its owner or root. */
    public static void signal(String signal, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor())
                .as("kill -%s %d", signal, pid).isZero();
    }

    /** Ends the backend (it dies once it runs again, if frozen) and, unless frozen, waits until the server no longer lists it. */
    public static void terminate(DataSource admin, long pid, boolean await) throws Exception {
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select pg_terminate_backend(" + pid + ")")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("backend %d terminated", pid).isTrue();
            }
            for (int i = 0; await && i < 250; i++) {
                try (ResultSet rs = s.executeQuery("select count(*) from pg_stat_activity where pid = " + pid)) {
                    rs.next();
                    if (rs.getInt(1) == 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
            if (await) {
                throw new AssertionError("backend " + pid + " still listed after 5 s");
            }
        }
    }
}
