package io.drover.executor.testing;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A data source over a real database whose network drops at the COMMIT of the first transaction
 * that prepared a statement with the given SQL: the caller gets a connection failure (08006),
 * and from then on every new connection is refused (08001) until {@link #reconnect}. Either the
 * server had committed ({@link #afterCommit}: the answer was lost) or it had not
 * ({@link #beforeCommit}: the transaction rolled back); the caller cannot tell which.
 * Connections already open keep working.
 */
public final class DroppedConnection extends FaultyDataSource {
    private final String sql;
    private final boolean committed;
    private final AtomicBoolean lost = new AtomicBoolean();
    private final CountDownLatch replyLost = new CountDownLatch(1);
    private volatile boolean away;

    private DroppedConnection(DataSource real, String sql, boolean committed) {
        super(real);
        this.sql = sql;
        this.committed = committed;
    }

    /** The server commits the transaction; its answer is lost. */
    public static DroppedConnection afterCommit(DataSource real, String sql) {
        return new DroppedConnection(real, sql, true);
    }

    /** The COMMIT never reaches the server: the transaction rolls back. */
    public static DroppedConnection beforeCommit(DataSource real, String sql) {
        return new DroppedConnection(real, sql, false);
    }

    /** Waits until the connection dropped at that COMMIT; the database is away from then on. */
    public boolean awaitDropped(Duration timeout) throws InterruptedException {
        return replyLost.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The database is reachable again. */
    public void reconnect() {
        away = false;
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseWhileAway();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        refuseWhileAway();
        return super.getConnection(user, password);
    }

    private void refuseWhileAway() throws SQLException {
        if (away) {
            throw new SQLException("Connection refused (the test took the database away)", "08001");
        }
    }

    @Override
    protected Connection connection(Connection c) {
        AtomicBoolean ranIt = new AtomicBoolean();
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().equals("prepareStatement") && sql.equals(args[0])) {
                ranIt.set(true);
            }
            if (m.getName().equals("commit") && ranIt.get() && lost.compareAndSet(false, true)) {
                if (committed) {
                    c.commit();
                } else {
                    c.rollback();
                }
                away = true;
                replyLost.countDown();
                throw new SQLException("An I/O error occurred while sending to the backend (the test dropped the"
                        + " connection; the server " + (committed ? "committed" : "rolled back") + ")", "08006");
            }
            return invoke(c, m, args);
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class}, h);
    }
}
