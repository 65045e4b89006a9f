package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ExceptionSorter;
import io.drover.contract.DatabaseDiagnosis;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tells an Agroal pool which failures leave a connection unusable ({@link SqlErrors#connectionLost}),
 * so it is discarded when closed instead of pooled again, and what such a failure says of the
 * pool's other connections. Both of a node's pools use it: the engine's ({@link PooledDataSource})
 * and the shared one of the API, the gauges and the handlers (service.SharedPoolConfigurer).
 *
 * <ul>
 * <li>A session the server ended (a failover, a restart, an administrator): most likely it ended
 * all of them, so the idle connections are checked at once ({@link #checksIdle}).</li>
 * <li>A session on a server that takes no writes (25006: after a failover, the old primary back
 * as a replica): every connection of the pool was opened to that server, and each still passes a
 * check (it answers), so all are dropped, the idle ones now and the busy ones as they come back;
 * new ones reach the primary. Before, the shared pool kept them for their 30-minute lifetime,
 * every enqueue on them was refused, and readiness, which asks only whether a connection answers,
 * stayed up.</li>
 * </ul>
 * Either is done at most once per {@link #GAP}: one right after a failover finds them all, and
 * they must not queue up on the pool's housekeeping thread while the database comes and goes.
 * A 25006 cannot tell a read-only server from a read-only transaction of the caller's own: in
 * the shared pool a handler that writes in one costs the pool its connections, at most once per
 * {@link #GAP}, which is the price of an API that works again at once after a failover.
 */
public final class LostConnections implements ExceptionSorter {
    static final Duration GAP = Duration.ofSeconds(30);

    private final Gap idleChecks = new Gap();
    private final Gap drops = new Gap();
    private final AtomicInteger checksStarted = new AtomicInteger();
    private final AtomicInteger dropsStarted = new AtomicInteger();
    private volatile AgroalDataSource pool;

    /** The pool this sorter serves, once it is made (the sorter is part of its configuration). */
    public static void watch(AgroalDataSource pool) {
        if (pool.getConfiguration().connectionPoolConfiguration().exceptionSorter() instanceof LostConnections lost) {
            lost.pool = pool;
        }
    }

    /** This pool's sorter, if it is one (tests). */
    static LostConnections of(AgroalDataSource pool) {
        return (LostConnections) pool.getConfiguration().connectionPoolConfiguration().exceptionSorter();
    }

    /** How many idle checks were started (tests). */
    int checksStarted() {
        return checksStarted.get();
    }

    /** How many times all connections were dropped (tests). */
    int dropsStarted() {
        return dropsStarted.get();
    }

    @Override
    public boolean isFatal(SQLException e) {
        if (!SqlErrors.connectionLost(e)) {
            return false;
        }
        AgroalDataSource p = pool;
        if (p == null) {
            return true;
        }
        // Both run on the pool's housekeeping thread; the caller goes on at once.
        if (DatabaseDiagnosis.READ_ONLY.equals(e.getSQLState())) {
            if (drops.take()) {
                p.flush(AgroalDataSource.FlushMode.GRACEFUL);
                dropsStarted.incrementAndGet();
            }
        } else if (checksIdle(e) && idleChecks.take()) {
            // Connections being checked are not handed out; broken ones are closed.
            p.flush(AgroalDataSource.FlushMode.INVALID);
            checksStarted.incrementAndGet();
        }
        return true;
    }

    /**
     * Whether a failure has the pool check its idle connections at once: what ended one session
     * most likely ended all of them, and the engine's pool hands out a connection returned less
     * than {@link PooledDataSource#IDLE_VALIDATION} ago unchecked, so each would otherwise fail
     * one more call of the engine's loops before it is discarded. Not after a timeout: the check
     * of a half-open connection waits up to its validation timeout on the pool's one housekeeping
     * thread, which also opens the new connections the loops wait for; such connections are
     * checked on borrow, on the borrower's thread, as they idle. Nor for 08003: a call on a
     * connection the driver closed after its first failure (a rollback after a timeout), which
     * was decided on that failure. Nor for 25006, which a check does not find.
     */
    static boolean checksIdle(SQLException e) {
        return SqlErrors.connectionLost(e) && !DatabaseDiagnosis.timedOut(e) && !"08003".equals(e.getSQLState())
                && !DatabaseDiagnosis.READ_ONLY.equals(e.getSQLState());
    }

    /** Lets one caller through per {@link #GAP}. */
    private static final class Gap {
        private final AtomicLong last = new AtomicLong(System.nanoTime() - GAP.toNanos());

        boolean take() {
            long now = System.nanoTime();
            long before = last.get();
            return now - before >= GAP.toNanos() && last.compareAndSet(before, now);
        }
    }
}
