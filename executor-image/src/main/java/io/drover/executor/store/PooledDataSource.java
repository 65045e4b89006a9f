package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionFactoryConfiguration;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ConnectionValidator;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ExceptionSorter;
import io.agroal.api.configuration.supplier.AgroalConnectionFactoryConfigurationSupplier;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.drover.contract.DatabaseDiagnosis;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.function.UnaryOperator;

/**
 * Connection pools (Agroal). {@link #create} builds a general one for running the engine
 * outside Quarkus (benchmark tool, tests, demo); inside the service Quarkus configures the
 * shared one from quarkus.datasource.*. {@link #forEngine} builds the engine's own.
 */
public final class PooledDataSource {
    /** The engine's connections (SettingDefaults states why seven). */
    public static final int ENGINE_POOL_SIZE = io.drover.contract.SettingDefaults.ENGINE_POOL_SIZE;
    /** How long a connection may be checked on borrow: a half-open one must not hang the caller. */
    private static final int VALIDATION_SECONDS = 5;
    /**
     * A connection returned to the pool longer ago than this is checked before it is handed out
     * again. One the engine's loops used a moment ago is not: the check is a round trip (an empty
     * query, with two socket-option calls around it) per borrow, a quarter of an acquisition
     * cycle's and a third of a completion batch's round trips when they were checked on every
     * borrow. It would not catch more: a connection that breaks between two uses milliseconds
     * apart is no different from one that breaks during a statement, which the socket timeout
     * ends, and then {@link LostConnections} has the pool discard it (and check the idle ones if
     * the session was ended rather than timed out).
     */
    static final Duration IDLE_VALIDATION = Duration.ofSeconds(1);
    /**
     * At most one check of the idle connections ({@link #checksIdle}) this often: one right after
     * a failover finds them all, and checks must not queue up on the pool's housekeeping thread
     * while the database comes and goes.
     */
    static final Duration IDLE_CHECK_GAP = Duration.ofSeconds(30);

    private PooledDataSource() {
    }

    public static AgroalDataSource create(String jdbcUrl, String user, String password, int maxSize) {
        return build(maxSize, Duration.ofSeconds(30), IDLE_VALIDATION, f -> f
                .jdbcUrl(jdbcUrl)
                .principal(new NamePrincipal(user))
                .credential(new SimplePassword(password == null ? "" : password)));
    }

    /**
     * The engine's own pool, on the database of {@code base} (its URL, credentials and JDBC
     * properties), sized for the engine's loops, so handlers and API requests that use up the
     * shared pool can never starve lock renewal. Every connection has a socket timeout of
     * {@code databaseTimeout}: after a failover a half-open connection (the server gone, no RST)
     * makes a call fail after that long, instead of hanging a loop forever.
     */
    public static AgroalDataSource forEngine(AgroalDataSource base, Duration databaseTimeout) {
        AgroalConnectionFactoryConfiguration f = base.getConfiguration().connectionPoolConfiguration()
                .connectionFactoryConfiguration();
        Properties engine = engineProperties(databaseTimeout);
        Properties props = new Properties();
        props.putAll(f.jdbcProperties());
        props.putAll(engine);
        return build(ENGINE_POOL_SIZE, databaseTimeout, IDLE_VALIDATION, factory -> {
            factory.jdbcUrl(engineUrl(f.jdbcUrl(), engine)).principal(f.principal());
            credentials(factory, f.credentials());
            props.forEach((k, v) -> factory.jdbcProperty(k.toString(), v.toString()));
            return factory;
        });
    }

    /** As {@link #forEngine(AgroalDataSource, Duration)}, from a URL and credentials (tests, benchmark). */
    public static AgroalDataSource forEngine(String jdbcUrl, String user, String password, Duration databaseTimeout) {
        return forEngine(jdbcUrl, user, password, databaseTimeout, IDLE_VALIDATION);
    }

    /** As above, with connections checked on borrow after {@code idleValidation} idle (tests). */
    static AgroalDataSource forEngine(String jdbcUrl, String user, String password, Duration databaseTimeout,
                                      Duration idleValidation) {
        Properties engine = engineProperties(databaseTimeout);
        return build(ENGINE_POOL_SIZE, databaseTimeout, idleValidation, factory -> {
            factory.jdbcUrl(engineUrl(jdbcUrl, engine)).principal(new NamePrincipal(user))
                    .credential(new SimplePassword(password == null ? "" : password));
            engine.forEach((k, v) -> factory.jdbcProperty(k.toString(), v.toString()));
            return factory;
        });
    }

    /**
     * pgjdbc settings of the engine's connections (seconds, as pgjdbc wants them), and the
     * server-side bounds of their sessions. The client gives up on a call after
     * {@code databaseTimeout}; the server must give up too, or a transaction whose client
     * vanished (a partition, a half-open connection) keeps its row locks, and every node that
     * sweeps, renews or completes those rows waits on them for good. So statements and idle
     * transactions end after the same time on the server, and the server probes idle clients
     * (TCP keepalive) so a vanished node's session, and its presence lock, end within a minute.
     */
    static Properties engineProperties(Duration databaseTimeout) {
        long seconds = Math.max(1, databaseTimeout.toSeconds());
        Properties p = new Properties();
        p.setProperty("socketTimeout", Long.toString(seconds));
        p.setProperty("connectTimeout", Long.toString(Math.min(seconds, 10)));
        p.setProperty("loginTimeout", Long.toString(Math.min(seconds, 10)));
        p.setProperty("tcpKeepAlive", "true");
        // Strings bound as varchar, whatever the shared pool's setting: with stringtype=unspecified
        // pgjdbc describes a server-prepared statement with an untyped parameter before it runs
        // it, and sends a Sync between the plan pin and the page (IndexPlans.pinned), which in
        // auto-commit mode commits the pin's transaction: from its sixth run on, the page ran
        // unpinned, with no error (EnginePoolTest).
        p.setProperty("stringtype", "varchar");
        long millis = seconds * 1000;
        p.setProperty("options", "-c statement_timeout=" + millis + " -c idle_in_transaction_session_timeout=" + millis
                + " -c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3");
        return p;
    }

    /**
     * The URL without the parameters the engine sets itself ({@link #engineProperties}): pgjdbc
     * lets a URL's parameters override the connection properties, and the engine's must hold.
     */
    static String engineUrl(String jdbcUrl, Properties engine) {
        int query = jdbcUrl.indexOf('?');
        if (query < 0) {
            return jdbcUrl;
        }
        Set<String> ours = engine.stringPropertyNames().stream()
                .map(k -> k.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        String kept = Arrays.stream(jdbcUrl.substring(query + 1).split("&"))
                .filter(p -> !p.isEmpty() && !ours.contains(p.split("=", 2)[0].toLowerCase(Locale.ROOT)))
                .collect(Collectors.joining("&"));
        return jdbcUrl.substring(0, query) + (kept.isEmpty() ? "" : "?" + kept);
    }

    private static void credentials(AgroalConnectionFactoryConfigurationSupplier factory, Collection<Object> credentials) {
        for (Object c : credentials) {
            factory.credential(c);
        }
    }

    private static AgroalDataSource build(int maxSize, Duration acquisitionTimeout, Duration idleValidation,
                                          UnaryOperator<AgroalConnectionFactoryConfigurationSupplier> factory) {
        LostConnections lost = new LostConnections();
        var config = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(maxSize)
                        .acquisitionTimeout(acquisitionTimeout)
                        // A connection broken while it sat in the pool (a failover, a terminated
                        // backend) is detected on borrow and replaced, not handed out again.
                        // (Agroal's default validator calls isValid(0), which waits forever on a
                        // half-open connection.)
                        .idleValidationTimeout(idleValidation)
                        .connectionValidator(ConnectionValidator.defaultValidatorWithTimeout(VALIDATION_SECONDS))
                        // One that broke in use is discarded when it is closed, not pooled again,
                        // and if its session was ended (not timed out) the idle ones are checked.
                        .exceptionSorter(lost)
                        // New connections now and then: after a DNS failover (RDS) they reach the new primary.
                        .maxLifetime(Duration.ofMinutes(30))
                        .connectionFactoryConfiguration(factory::apply));
        try {
            AgroalDataSource pool = AgroalDataSource.from(config);
            lost.pool = pool;
            return pool;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a connection pool", e);
        }
    }

    /**
     * Whether a failure has the pool check its idle connections at once: what ended one session
     * (a failover, a restart, an administrator) most likely ended all of them, and a connection
     * returned less than {@link #IDLE_VALIDATION} ago is handed out unchecked, so each would
     * otherwise fail one more call of the engine's loops before it is discarded. Not after a
     * timeout: the check of a half-open connection waits up to {@link #VALIDATION_SECONDS} on the
     * pool's one housekeeping thread, which also opens the new connections the loops wait for;
     * such connections are checked on borrow, on the borrower's thread, as they idle. Nor for
     * 08003: a call on a connection the driver closed after its first failure (a rollback after
     * a timeout), which was decided on that failure.
     */
    static boolean checksIdle(SQLException e) {
        return SqlErrors.connectionLost(e) && !DatabaseDiagnosis.timedOut(e) && !"08003".equals(e.getSQLState());
    }

    /** How many idle checks {@link LostConnections} started on this pool (tests). */
    static int idleChecksStarted(AgroalDataSource pool) {
        return ((LostConnections) pool.getConfiguration().connectionPoolConfiguration().exceptionSorter())
                .checksStarted.get();
    }

    /**
     * Tells the pool that a connection failed with a connection error ({@link SqlErrors#connectionLost}),
     * so it is discarded, and, when the session was ended rather than timed out, has the pool
     * check its idle connections at once ({@link #checksIdle}).
     */
    private static final class LostConnections implements ExceptionSorter {
        private final AtomicLong lastCheck = new AtomicLong(System.nanoTime() - IDLE_CHECK_GAP.toNanos());
        private final AtomicInteger checksStarted = new AtomicInteger();
        volatile AgroalDataSource pool;

        @Override
        public boolean isFatal(SQLException e) {
            if (!SqlErrors.connectionLost(e)) {
                return false;
            }
            long now = System.nanoTime();
            long last = lastCheck.get();
            AgroalDataSource p = pool;
            if (p != null && checksIdle(e) && now - last >= IDLE_CHECK_GAP.toNanos()
                    && lastCheck.compareAndSet(last, now)) {
                // Runs on the pool's housekeeping thread; the caller goes on at once. Connections
                // being checked are not handed out; broken ones are closed.
                p.flush(AgroalDataSource.FlushMode.INVALID);
                checksStarted.incrementAndGet();
            }
            return true;
        }
    }
}
