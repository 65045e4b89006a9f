package io.drover.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

/**
 * A real PostgreSQL server (embedded binaries) that the campaign can stop and start again on
 * the same port and data directory: a restart, or an outage of any length, as the nodes see it.
 */
final class Database implements AutoCloseable {
    private final Path dataDir;
    private final int port;
    private EmbeddedPostgres server;

    Database(Path dataDir, int port) {
        this.dataDir = dataDir;
        this.port = port;
    }

    synchronized void start() throws IOException {
        server = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", "off") // test data is disposable; keeps the box responsive
                .start();
    }

    /** A fast shutdown: every session is ended, as in a restart or a failover. */
    synchronized void stop() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /**
     * SIGSTOP of the server and every process of it: it neither answers nor ends a session, as
     * in a storage stall or a paused VM. A request sent meanwhile waits in its socket and runs
     * when the server is thawed, long after its client gave up on it. The postmaster is stopped
     * first, so it forks no new process while its children are stopped; a child that exits
     * meanwhile (an autovacuum worker, a closing session) is no error.
     */
    synchronized void freeze() throws Exception {
        long postmaster = postmaster();
        Signals.sendOne("STOP", postmaster);
        Signals.send("STOP", children(postmaster));
        Signals.awaitStopped(postmaster);
    }

    /** SIGCONT of every process of the server; safe to call whatever freeze() got to. */
    synchronized void thaw() throws Exception {
        long postmaster = postmaster();
        Signals.send("CONT", children(postmaster));
        Signals.send("CONT", List.of(postmaster));
    }

    /** The server's process id (a restart gives a new one). */
    synchronized long postmaster() throws IOException {
        return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
    }

    private static List<Long> children(long postmaster) {
        return ProcessHandle.of(postmaster).map(p -> p.descendants().map(ProcessHandle::pid).toList()).orElse(List.of());
    }

    int port() {
        return port;
    }

    static String jdbcUrl(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(port), "postgres", "postgres");
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
