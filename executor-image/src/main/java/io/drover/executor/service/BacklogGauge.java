package io.drover.executor.service;

import io.drover.executor.store.FleetFigures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * drover_due_backlog: due, unlocked jobs (capped at 1,000,000); drover_due_lag_seconds: how
 * late the oldest of them is; drover_dead_letters: dead letters (capped at 10,000). Refreshed
 * in the background every {@code backlogRefreshInterval}, so a scrape never waits on the
 * database and ten scrapers cost one read. The figures are the whole cluster's, so one node
 * counts them per interval and the others read its row ({@link FleetFigures}): the database's
 * cost does not grow with the fleet. NaN while the database cannot be read.
 */
@Singleton
public class BacklogGauge {
    private static final Logger LOG = Logger.getLogger(BacklogGauge.class);

    /** Made once the node started (its settings are valid then: ExecutorNode reports them if not). */
    private final jakarta.enterprise.inject.Instance<FleetFigures> figures;
    private final DroverConfig config;
    private final ExecutorNode node;
    private volatile double backlog = Double.NaN;
    private volatile double lagSeconds = Double.NaN;
    private volatile double deadLetters = Double.NaN;
    private ScheduledExecutorService scheduler;

    BacklogGauge(jakarta.enterprise.inject.Instance<FleetFigures> figures, DroverConfig config, ExecutorNode node, MeterRegistry registry) {
        this.figures = figures;
        this.config = config;
        this.node = node;
        Gauge.builder("drover.due.backlog", this, g -> g.backlog)
                .description("Due jobs not locked by any node (whole cluster, capped at 1,000,000)")
                .register(registry);
        Gauge.builder("drover.due.lag", this, g -> g.lagSeconds).baseUnit("seconds")
                .description("How late the oldest due job no node holds is (whole cluster; 0 when none)")
                .register(registry);
        Gauge.builder("drover.dead.letters", this, g -> g.deadLetters)
                .description("Dead letters (whole cluster, capped at 10,000)")
                .register(registry);
    }

    void start(@Observes StartupEvent event) {
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("drover-backlog").factory());
        long every = config.backlogRefreshInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::refresh, 0, every, TimeUnit.MILLISECONDS);
    }

    private void refresh() {
        if (!node.started()) {
            return; // the schema may not be migrated yet: unknown (NaN), and no error in the database's log
        }
        try {
            FleetFigures.DueFigures due = figures.get().read(config.backlogRefreshInterval());
            backlog = due.backlog();
            lagSeconds = due.oldestLagSeconds();
            deadLetters = due.deadLetters();
        } catch (Exception | Error e) {
            // unknown, not zero: an autoscaler must not read an outage as "idle". An Error too: it
            // would end the scheduled task without a word, and the gauges kept their last values
            // for good (a stale lag keeps its alert firing; a stale dead-letter count hides new ones).
            backlog = Double.NaN;
            lagSeconds = Double.NaN;
            deadLetters = Double.NaN;
            if (e instanceof Error) {
                LOG.warnf(e, "Backlog refresh failed (the gauges read NaN until the next refresh)");
            } else {
                LOG.debugf("Backlog refresh failed: %s", e.getMessage());
            }
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
