package io.drover.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
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
     * when the server is thawed, long after its client gave up on it.
     */
    synchronized void freeze() throws Exception {
        signal("STOP");
    }

    synchronized void thaw() throws Exception {
        signal("CONT");
    }

    private void signal(String name) throws Exception {
        long postmaster = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
        List<String> command = new ArrayList<>(List.of("kill", "-" + name, Long.toString(postmaster)));
        ProcessHandle.of(postmaster).orElseThrow().descendants().forEach(p -> command.add(Long.toString(p.pid())));
        int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + exit);
        }
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
