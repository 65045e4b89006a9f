package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.SettingDefaults;
import io.drover.executor.config.Durations;
import io.drover.executor.bench.DatabaseOptions;
import io.drover.executor.bench.HelpOption;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Seeder;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.store.Tables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code renewal}: what lock renewal costs the database as the fleet grows. Each node renews
 * every job it holds (queued and running, up to queueSize + threads) once per lockExpiry/4, one
 * UPDATE of those rows ({@link JobSql#renewLocks()}), and the lock expiry is indexed, so each row
 * is rewritten with its index entries (no HOT update). This times that statement on a migrated
 * schema beside a backlog and prints the database time a fleet of N nodes spends on it per second.
 * The fleet's renewals are independent statements on disjoint rows, so the cost adds up linearly.
 */
@Command(name = "renewal", showDefaultValues = true,
        description = "Times one node's lock renewal (JobSql.renewLocks) and prints its cost for fleets of 1 to 64 nodes.")
final class RenewalCost implements Callable<Integer> {
    private static final String SCHEMA = "drover_bench_renewal";

    @Mixin
    HelpOption help;

    @Mixin
    DatabaseOptions database;

    /** A node at the settings' defaults holds a full queue and a job on every thread. */
    private static final int DEFAULT_HELD = Integer.parseInt(SettingDefaults.QUEUE_SIZE) + Integer.parseInt(SettingDefaults.THREADS);

    @Option(names = "--held", description = "jobs one node holds (default: queueSize + threads at their defaults, " + "${DEFAULT-VALUE})")
    int held = DEFAULT_HELD;

    @Option(names = "--backlog", defaultValue = "1000000", description = "unlocked jobs beside them")
    int backlog;

    @Option(names = "--rounds", defaultValue = "25", description = "renewals timed (after 5 untimed)")
    int rounds;

    @Option(names = "--lock-expiry-seconds", description = "lockExpiry (default: its default, ${DEFAULT-VALUE}); renewal runs every quarter of it")
    int lockExpirySeconds = (int) Durations.parse("lockExpiry", SettingDefaults.LOCK_EXPIRY).toSeconds();

    @Override
    public Integer call() throws Exception {
        var db = database.database();
        try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 2)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("drop schema if exists " + SCHEMA + " cascade");
            }
            try {
                return measure(ds);
            } finally {
                try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                    s.execute("drop schema if exists " + SCHEMA + " cascade");
                }
            }
        }
    }

    private int measure(AgroalDataSource ds) throws Exception {
        Migrations.migrate(ds, SCHEMA);
        Seeder.seed(ds, SCHEMA, JobKind.parse("noop"), backlog + held);
        String owner = "node-0:renewal";
        List<Long> heldIds = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("update " + SCHEMA + ".job set locked_by = '" + owner + "',"
                    + " lock_expires_at = now() + interval '" + lockExpirySeconds + " s'"
                    + " where id in (select id from " + SCHEMA + ".job order by id limit " + held + ") returning id")) {
                while (rs.next()) {
                    heldIds.add(rs.getLong(1));
                }
            }
            s.execute("vacuum analyze " + SCHEMA + ".job");
        }
        double[] millis = new double[rounds];
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement(new JobSql(new Tables(SCHEMA)).renewLocks())) {
            Array ids = c.createArrayOf("bigint", heldIds.toArray(Long[]::new));
            for (int i = -5; i < rounds; i++) {
                long start = System.nanoTime();
                ps.setLong(1, lockExpirySeconds * 1000L);
                ps.setArray(2, ids);
                ps.setString(3, owner);
                int renewed = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed++;
                    }
                }
                if (renewed != held) {
                    throw new IllegalStateException("renewed " + renewed + " of " + held + " locks");
                }
                if (i >= 0) {
                    millis[i] = (System.nanoTime() - start) / 1e6;
                }
            }
        }
        Arrays.sort(millis);
        double median = millis[rounds / 2];
        double every = lockExpirySeconds / 4.0;
        System.out.printf("lock renewal of %,d held jobs beside %,d unlocked (autocommit, one statement): median %.2f ms"
                + " (%.2f-%.2f over %d rounds), %.1f µs per row%n", held, backlog, median, millis[0], millis[rounds - 1],
                rounds, median * 1000 / held);
        System.out.printf("every %.0f s per node (lockExpiry %d s / 4); database time per second of wall time:%n", every,
                lockExpirySeconds);
        for (int nodes : new int[] {1, 4, 16, 64}) {
            System.out.printf("  %2d nodes: %6.2f ms/s (%.2f%% of one core)%n", nodes, nodes * median / every,
                    nodes * median / every / 10);
        }
        return 0;
    }
}
