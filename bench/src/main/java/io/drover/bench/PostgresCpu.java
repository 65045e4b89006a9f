package io.drover.bench;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The CPU time of a PostgreSQL server running on this machine: the postmaster, its live
 * children (backends, checkpointer, WAL writer, autovacuum) and, through the postmaster's
 * children times, every child that exited, so that a backend closing during a measurement
 * (pgbench's, at its end) still counts. A server this machine cannot see (elsewhere, or in
 * another pid namespace) reads NaN.
 */
final class PostgresCpu {
    private static final String SERVER = "postgres";
    private final long postmaster;

    private PostgresCpu(long postmaster) {
        this.postmaster = postmaster;
    }

    /**
     * Finds the postmaster as the parent of a backend of {@code ds}. Both must be processes named
     * postgres here: a server elsewhere answers with a pid that means nothing on this machine.
     */
    static PostgresCpu of(DataSource ds) throws SQLException {
        long backend;
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            backend = rs.getLong(1);
        }
        return new PostgresCpu(ProcStat.read(backend).filter(p -> p.name().equals(SERVER))
                .flatMap(p -> ProcStat.read(p.ppid())).filter(p -> p.name().equals(SERVER))
                .map(ProcStat::pid).orElse(-1L));
    }

    boolean visible() {
        return postmaster > 0;
    }

    /**
     * {@link #micros()} without one backend's CPU (a benchmark's own session, which is not the
     * work measured); the whole server's if that backend is not seen.
     */
    double microsExcept(long backend) throws IOException {
        return micros() - ProcStat.read(backend).filter(p -> p.ppid() == postmaster).map(ProcStat::cpuMicros).orElse(0L);
    }

    /** CPU microseconds the server has used so far, NaN when not visible. */
    double micros() throws IOException {
        Optional<ProcStat> server = visible() ? ProcStat.read(postmaster) : Optional.empty();
        if (server.isEmpty()) {
            return Double.NaN;
        }
        long total = server.get().cpuMicros() + server.get().childrenCpuMicros();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                Optional<ProcStat> child = ProcStat.read(Long.parseLong(p.getFileName().toString()));
                if (child.isPresent() && child.get().ppid() == postmaster) {
                    total += child.get().cpuMicros();
                }
            }
        }
        return total;
    }
}
