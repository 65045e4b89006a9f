package io.drover.executor.testing;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * A data source over a real database that loses the reply to one COMMIT and then the database
 * itself: the first transaction that prepared a statement with the given SQL commits on the
 * server, and its caller gets a connection failure (08006) instead; from then on every new
 * connection is refused (08001) until {@link #reconnect}, as when the network to the database
 * goes down between the server's commit and its answer. Connections already open keep working.
 */
public final class CommitReplyLost implements DataSource {
    private final DataSource real;
    private final String sql;
    private final AtomicBoolean lost = new AtomicBoolean();
    private final CountDownLatch replyLost = new CountDownLatch(1);
    private volatile boolean away;

    public CommitReplyLost(DataSource real, String sql) {
        this.real = real;
        this.sql = sql;
    }

    /** Waits until the transaction committed and its reply was lost; the database is away from then on. */
    public boolean awaitReplyLost(Duration timeout) throws InterruptedException {
        return replyLost.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The database is reachable again. */
    public void reconnect() {
        away = false;
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseWhileAway();
        return connection(real.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        refuseWhileAway();
        return connection(real.getConnection(user, password));
    }

    private void refuseWhileAway() throws SQLException {
        if (away) {
            throw new SQLException("Connection refused (the test took the database away)", "08001");
        }
    }

    private Connection connection(Connection c) {
        AtomicBoolean ranIt = new AtomicBoolean();
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().equals("prepareStatement") && sql.equals(args[0])) {
                ranIt.set(true);
            }
            if (m.getName().equals("commit") && ranIt.get() && lost.compareAndSet(false, true)) {
                c.commit();
                away = true;
                replyLost.countDown();
                throw new SQLException("An I/O error occurred while sending to the backend (the test dropped the"
                        + " reply; the server committed)", "08006");
            }
            return invoke(c, m, args);
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class}, h);
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
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
