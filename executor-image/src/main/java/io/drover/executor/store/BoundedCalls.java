package io.drover.executor.store;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The shared pool as the API and the gauges use it: each call to the database is given up after
 * {@code bound} without an answer (the connection's socket timeout, set as it is borrowed and put
 * back as it is closed, so a handler that borrows it next has the pool's own). The pool's own is
 * long (5 minutes, for handlers' long queries), and a call that was in flight when the database
 * went silent (a failover without a reset, a partition) hung that long: its API request did, and
 * 20 of them took the whole pool, so readiness failed for minutes after the database was back,
 * and the backlog gauges kept their last figures. The connection it failed on is discarded (an
 * I/O error); the API answers 503.
 */
public final class BoundedCalls implements DataSource {
    /** How long an API request's call to the database may go unanswered. */
    public static final Duration API = Duration.ofSeconds(30);

    private final DataSource pool;
    private final int millis;

    public BoundedCalls(DataSource pool, Duration bound) {
        this.pool = pool;
        this.millis = Math.toIntExact(bound.toMillis());
    }

    @Override
    public Connection getConnection() throws SQLException {
        return bounded(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return bounded(pool.getConnection(username, password));
    }

    private Connection bounded(Connection c) throws SQLException {
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
                    try {
                        return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
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

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return pool.isWrapperFor(iface);
    }
}
