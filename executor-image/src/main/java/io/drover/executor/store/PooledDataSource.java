package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionFactoryConfiguration;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ConnectionValidator;
import io.agroal.api.configuration.supplier.AgroalConnectionFactoryConfigurationSupplier;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
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
                        // and the others are checked or dropped as its failure says (LostConnections).
                        .exceptionSorter(new LostConnections())
                        // New connections now and then: after a DNS failover (RDS) they reach the new primary.
                        .maxLifetime(Duration.ofMinutes(30))
                        .connectionFactoryConfiguration(factory::apply));
        try {
            AgroalDataSource pool = AgroalDataSource.from(config);
            LostConnections.watch(pool);
            return pool;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a connection pool", e);
        }
    }
}
