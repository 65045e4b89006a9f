package io.drover.executor.store;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * A data source over another that hands out its connections changed by a subclass (usually a
 * java.lang.reflect.Proxy of each: {@link #invoke} calls through to the real one); the rest is
 * the other's. {@link BoundedCalls} bounds their calls; tests make them fail in chosen ways.
 */
public abstract class ProxiedDataSource implements DataSource {
    protected final DataSource real;

    protected ProxiedDataSource(DataSource real) {
        this.real = real;
    }

    /** The connection to hand out for {@code c}, a connection of the real data source. */
    protected abstract Connection connection(Connection c) throws SQLException;

    /** Calls {@code m} on {@code target}, throwing what it throws (not the reflection wrapper). */
    protected static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection(real.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return connection(real.getConnection(username, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return real.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return real.isWrapperFor(iface);
    }
}
