package io.drover.executor.store;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Connections whose calls are given up after {@code bound} without an answer: the connection's
 * socket timeout, set as it is borrowed and put back as it is closed (a handler that borrows it
 * from the shared pool next has the pool's own); and, so that the server gives up too, a query
 * timeout 5 s shorter on every statement made on it (pgjdbc cancels the statement on the server,
 * which rolls it back: a request answered 503 then wrote nothing, and no backend goes on for it
 * after its client left). The shared pool's own socket timeout is long (5 minutes, for handlers'
 * long queries), and a call in flight when the database went silent (a failover without a reset,
 * a partition) hung that long: its API request did, and 20 of them took the whole pool, so
 * readiness failed for minutes after the database was back, and the backlog gauges kept their
 * last figures. The connection it failed on is discarded (an I/O error); the API answers 503.
 * The node's session bounds its calls so too.
 */
public final class BoundedCalls extends ProxiedDataSource {
    /** How long an API request's call to the database may go unanswered. */
    public static final Duration API = Duration.ofSeconds(30);

    private final int millis;
    private final int querySeconds;

    /** @param bound at least 6 s: the statements' query timeout is 5 s shorter */
    public BoundedCalls(DataSource pool, Duration bound) {
        super(pool);
        if (bound.toSeconds() < 6) {
            throw new IllegalArgumentException("a bound of at least 6 s, got " + bound);
        }
        this.millis = Math.toIntExact(bound.toMillis());
        this.querySeconds = Math.toIntExact(bound.toSeconds() - 5);
    }

    @Override
    protected Connection connection(Connection c) throws SQLException {
        int pools;
        try {
            pools = c.getNetworkTimeout();
            c.setNetworkTimeout(Runnable::run, millis); // pgjdbc sets the socket's timeout; the executor is not used
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        restore(c, pools);
                    }
                    Object result = invoke(c, method, args);
                    if (result instanceof Statement statement) { // createStatement, prepareStatement, prepareCall
                        statement.setQueryTimeout(querySeconds);
                    }
                    return result;
                });
    }

    /** Puts the pool's timeout back; a connection that failed (closed by the driver) is discarded anyway. */
    private static void restore(Connection c, int pools) {
        try {
            if (!c.isClosed()) {
                c.setNetworkTimeout(Runnable::run, pools);
            }
        } catch (SQLException ignored) {
            // broken: the pool discards it as it is closed
        }
    }
}
