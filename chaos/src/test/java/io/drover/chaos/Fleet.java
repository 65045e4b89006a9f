package io.drover.chaos;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Executor nodes of one scenario, in a schema of their own, each behind its own TCP proxy to
 * the database (so one node's connections can be made half-open), all reporting to the
 * receiver.
 */
final class Fleet implements AutoCloseable {
    private static int nextPort = 18_100;

    private final Database database;
    private final String schema;
    private final Map<String, ExecutorNode> nodes = new LinkedHashMap<>();
    private final Map<String, TcpProxy> proxies = new HashMap<>();

    Fleet(Database database, String schema) {
        this.database = database;
        this.schema = schema;
    }

    String schema() {
        return schema;
    }

    /**
     * Starts a node. {@code label} names it in the receiver's records; {@code nodeName} is its
     * Drover node name (two fleets may share node names, as pods of two clusters can).
     */
    ExecutorNode start(String label, String nodeName, Map<String, String> settings, Campaign campaign) throws Exception {
        TcpProxy proxy = new TcpProxy(database.port());
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", Database.jdbcUrl(proxy.port()));
        env.put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        env.put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
        env.put("DROVER_NODENAME", nodeName);
        env.put("DROVER_SCHEMA", schema);
        env.put("DROVER_HANDLERSDIR", campaign.handlersDir().toString());
        env.put("CHAOS_RECEIVER", campaign.receiver().url());
        env.put("CHAOS_NODE", label);
        env.put("QUARKUS_LOG_CONSOLE_FORMAT", "%d{HH:mm:ss,SSS} %-5p [%c{1}] %s%e%n");
        settings.forEach((k, v) -> env.put("DROVER_" + k.toUpperCase(java.util.Locale.ROOT), v));
        Path log = campaign.workDir().resolve(schema + "-" + label.replace('/', '_') + ".log");
        ExecutorNode node = new ExecutorNode(label, campaign.executorJar(), env, nextPort++, log);
        nodes.put(label, node);
        proxies.put(label, proxy);
        return node;
    }

    ExecutorNode node(String label) {
        return nodes.get(label);
    }

    TcpProxy proxy(String label) {
        return proxies.get(label);
    }

    List<ExecutorNode> nodes() {
        return List.copyOf(nodes.values());
    }

    void awaitReady(Duration timeout) throws InterruptedException {
        await("all nodes ready", timeout, () -> nodes.values().stream().allMatch(ExecutorNode::ready));
    }

    /** Inserts jobs with plain SQL (as producers do) and returns their ids. */
    List<Long> insert(int count, String type, String payload, int maxAttempts) throws Exception {
        return ids("insert into " + schema + ".job (type, payload, max_attempts) select '" + type + "', '"
                + payload + "', " + maxAttempts + " from generate_series(1, " + count + ") returning id");
    }

    List<Long> ids(String sql) throws Exception {
        List<Long> ids = new ArrayList<>();
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    long count(String sqlWithSchema) throws Exception {
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sqlWithSchema.replace("{s}", schema))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Dead letters by job id: their error. */
    Map<Long, String> deadLetters() throws Exception {
        Map<Long, String> dead = new HashMap<>();
        try (Connection c = database.connect(); PreparedStatement ps = c.prepareStatement(
                "select id, error from " + schema + ".dead_letter"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                dead.put(rs.getLong(1), rs.getString(2));
            }
        }
        return dead;
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(250);
        }
    }

    /** The database may be down while this is asked: then the answer is "not yet". */
    BooleanSupplier sql(String sqlWithSchema, long expected) {
        return () -> {
            try {
                return count(sqlWithSchema) == expected;
            } catch (Exception e) {
                return false;
            }
        };
    }

    @Override
    public void close() throws Exception {
        for (ExecutorNode n : nodes.values()) {
            n.close();
        }
        for (TcpProxy p : proxies.values()) {
            p.close();
        }
    }
}
