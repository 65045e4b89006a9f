package io.drover.flowable.bench;

import io.drover.bench.core.Vacuum;
import org.flowable.common.engine.impl.interceptor.Command;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Seeds process instances into a running Flowable fleet's schema, Flowable's way (its own
 * engine, its own API), with every job out of the nodes' reach until all are written (async
 * jobs written locked by {@link SeedLock}, timers parked a day ahead), then all made visible in
 * one transaction ({@link #release}). The engine runs no async executor of its own and leaves
 * the schema as the fleet created it.
 */
final class FlowableSeeder implements AutoCloseable {
    /** Instances started per transaction: Flowable's entity cache holds them until the commit. */
    private static final int BATCH = 500;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema;
    private final ProcessEngine engine;

    FlowableSeeder(String jdbcUrl, String user, String password, String schema) {
        this.jdbcUrl = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        this.user = user;
        this.password = password;
        this.schema = schema;
        var cfg = new StandaloneProcessEngineConfiguration();
        cfg.setJdbcUrl(this.jdbcUrl);
        cfg.setJdbcUsername(user);
        cfg.setJdbcPassword(password);
        cfg.setJdbcDriver("org.postgresql.Driver");
        cfg.setDatabaseSchema(schema);
        cfg.setDatabaseSchemaUpdate("false"); // the fleet's nodes create and upgrade it
        cfg.setAsyncExecutorActivate(false);
        cfg.setCreateDiagramOnDeploy(false);
        cfg.setEngineName("drover-bench-seeder");
        cfg.setEventListeners(List.of(new SeedLock()));
        this.engine = cfg.buildProcessEngine();
    }

    /** The newest deployed version of the kind's model (the nodes deploy the bundled models). */
    String definitionId(BenchKind kind) {
        var definition = engine.getRepositoryService().createProcessDefinitionQuery()
                .processDefinitionKey(kind.processKey()).latestVersion().singleResult();
        if (definition == null) {
            throw new IllegalStateException("no process definition '" + kind.processKey() + "' in schema " + schema
                    + ": are the fleet's nodes running (they deploy the bundled models)?");
        }
        return definition.getId();
    }

    /**
     * Writes {@code count} instances, their jobs locked by the seed, in transactions of
     * {@value #BATCH}. An earlier run that failed may have left seed-locked jobs: they are
     * unlocked first and counted in the drain's baseline by the caller.
     */
    void seedLocked(BenchKind kind, String definitionId, int count, Consumer<String> progress) {
        var runtime = engine.getRuntimeService();
        for (int done = 0; done < count; ) {
            int n = Math.min(BATCH, count - done);
            engine.getManagementService().executeCommand((Command<Void>) context -> {
                Instant now = Instant.now();
                for (int i = 0; i < n; i++) {
                    runtime.startProcessInstanceById(definitionId, kind.variables(now));
                }
                return null;
            });
            done += n;
            if (done % 10_000 == 0 || done == count) {
                progress.accept("seeded " + done + " of " + count + " instances (jobs locked by " + SeedLock.OWNER + ")");
            }
        }
    }

    /**
     * Makes every seeded job visible in one transaction, so the drain starts at its commit: the
     * async jobs are unlocked, and the parked timers of this model made due now. Returns how
     * many; an earlier run's leftovers are released too (callers drain them before seeding).
     */
    int release(String definitionId) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            int released;
            try (PreparedStatement jobs = c.prepareStatement("update " + schema + ".act_ru_job"
                    + " set lock_owner_ = null, lock_exp_time_ = null where lock_owner_ = ?");
                 PreparedStatement timers = c.prepareStatement("update " + schema + ".act_ru_timer_job"
                         + " set duedate_ = now() where proc_def_id_ = ? and lock_owner_ is null and duedate_ > now()")) {
                jobs.setString(1, SeedLock.OWNER);
                timers.setString(1, definitionId);
                released = jobs.executeUpdate() + timers.executeUpdate();
            }
            c.commit();
            return released;
        }
    }

    /**
     * Vacuums Flowable's tables ({@code act_*}: the runtime tables a drain deletes from, the
     * history tables it updates) before a seed, as Drover's {@code bench run} vacuums its job
     * table: each engine starts every drain without the dead rows of the runs before it, in a
     * schema reused from run to run.
     *
     * @return what the VACUUM could not do ({@link Vacuum}), or null
     */
    String vacuumTables() throws SQLException {
        try (Connection c = connect()) {
            List<String> tables = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "select quote_ident(tablename) from pg_tables where schemaname = ? and tablename like 'act\\_%'")) {
                ps.setString(1, schema);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        tables.add(schema + "." + rs.getString(1));
                    }
                }
            }
            if (tables.isEmpty()) {
                throw new IllegalStateException("no Flowable tables in schema " + schema
                        + ": are the fleet's nodes running (they create them)?");
            }
            return Vacuum.tables(c, tables);
        }
    }

    /** Jobs of this model not yet done, wherever they are (due timers move to act_ru_job before they run). */
    long remaining(Connection c, String definitionId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select (select count(*) from " + schema + ".act_ru_job where proc_def_id_ = ?)"
                + " + (select count(*) from " + schema + ".act_ru_timer_job where proc_def_id_ = ?)")) {
            ps.setString(1, definitionId);
            ps.setString(2, definitionId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    @Override
    public void close() {
        engine.close();
    }
}
