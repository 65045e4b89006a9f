package io.drover.executor.testing;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A data source over a real database whose connections lose the answer to one statement: the
 * first time a statement with the given SQL runs, the server runs and commits it (auto-commit),
 * and the caller gets a connection failure (08006) instead of the row count, as when the network
 * drops the reply to a commit. Every later run of that statement (the caller writing it again)
 * first waits for {@link #letRewriteThrough}, so a test can place the rewrite after an event of
 * its choosing; the row counts those rewrites got are kept. Every other statement passes through.
 */
public final class LostReply extends FaultyDataSource {
    private final String sql;
    private final AtomicBoolean lost = new AtomicBoolean();
    private final CountDownLatch replyLost = new CountDownLatch(1);
    private final CountDownLatch rewriteAllowed = new CountDownLatch(1);
    private final List<Integer> rewrites = new CopyOnWriteArrayList<>();

    public LostReply(DataSource real, String sql) {
        super(real);
        this.sql = sql;
    }

    /** Waits until the statement ran once and its reply was lost. */
    public boolean awaitReplyLost(Duration timeout) throws InterruptedException {
        return replyLost.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public void letRewriteThrough() {
        rewriteAllowed.countDown();
    }

    /** The rows each rewrite of the statement changed, in order. */
    public List<Integer> rewrites() {
        return List.copyOf(rewrites);
    }

    @Override
    protected Connection connection(Connection c) {
        InvocationHandler h = (proxy, m, args) -> {
            Object result = invoke(c, m, args);
            if (m.getName().equals("prepareStatement") && sql.equals(args[0])) {
                return statement((PreparedStatement) result);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class}, h);
    }

    private PreparedStatement statement(PreparedStatement ps) {
        InvocationHandler h = (proxy, m, args) -> {
            if (!m.getName().equals("executeUpdate") || args != null) {
                return invoke(ps, m, args);
            }
            if (lost.compareAndSet(false, true)) {
                int rows = ps.executeUpdate();
                replyLost.countDown();
                throw new SQLException("An I/O error occurred while sending to the backend (the test dropped the"
                        + " reply; the server committed " + rows + " rows)", "08006");
            }
            if (!rewriteAllowed.await(30, TimeUnit.SECONDS)) {
                throw new SQLException("the test never let the rewrite through", "08006");
            }
            int rows = ps.executeUpdate();
            rewrites.add(rows);
            return rows;
        };
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{PreparedStatement.class}, h);
    }
}
