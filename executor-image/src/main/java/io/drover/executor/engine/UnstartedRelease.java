package io.drover.executor.engine;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.LockMaintenance;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.List;

/**
 * Hands jobs this node holds but never started back to the fleet as it stops: the queued ones
 * (ExecutorEngine, on a thread of its own) and a page acquired as the stop began (AcquisitionLoop).
 * They are no longer renewed from the first moment, released or not: one that cannot be released
 * (the database away, its row held by another session) lapses after lockExpiry, not after the rest
 * of the grace period and lockExpiry. A row skipped for another session's lock (a renewal of this
 * node's still in flight) is tried again twice, 200 ms apart.
 */
final class UnstartedRelease {
    private static final Logger LOG = Logger.getLogger(UnstartedRelease.class);
    private static final int TRIES = 3;
    private static final long BETWEEN_TRIES_MILLIS = 200;

    private final DataSource dataSource;
    private final LockMaintenance maintenance;
    private final HeldJobs held;
    private final ExecutorMetrics metrics;

    UnstartedRelease(DataSource dataSource, LockMaintenance maintenance, HeldJobs held, ExecutorMetrics metrics) {
        this.dataSource = dataSource;
        this.maintenance = maintenance;
        this.held = held;
        this.metrics = metrics;
    }

    /** Stops renewing the jobs; the ids to {@link #release}. */
    List<Long> drop(List<HeldJobs.Lease> leases) {
        leases.forEach(held::drop);
        return leases.stream().map(HeldJobs.Lease::id).toList();
    }

    /**
     * Unlocks the jobs ({@link #drop}ped first) for other nodes to take, and logs how many.
     *
     * @param which the jobs, in the log's words ("queued jobs that had not started")
     */
    void release(List<Long> ids, String which) {
        if (ids.isEmpty()) {
            return;
        }
        int released = 0;
        try (Connection c = dataSource.getConnection()) {
            for (int attempt = 0; attempt < TRIES && released < ids.size(); attempt++) {
                if (attempt > 0) {
                    Thread.sleep(BETWEEN_TRIES_MILLIS);
                }
                released += maintenance.release(c, ids);
            }
            LOG.infof("Released %d %s, for other nodes to take", released, which);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warnf("Could not release %d %s (they run after lock expiry instead): %s",
                    ids.size() - released, which, e.getMessage());
        } finally {
            metrics.released(released);
        }
    }
}
