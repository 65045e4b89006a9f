package io.drover.executor.service;

import io.drover.executor.store.JobQueries;
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
 * drover_due_backlog: due, unlocked jobs (capped at 1,000,000). Refreshed in the background
 * every {@code backlogRefreshInterval}, so a scrape never waits on the database and ten
 * scrapers cost one query.
 */
@Singleton
public class BacklogGauge {
    private static final Logger LOG = Logger.getLogger(BacklogGauge.class);

    private final JobQueries queries;
    private final DroverConfig config;
    private volatile double backlog = Double.NaN;
    private ScheduledExecutorService scheduler;

    BacklogGauge(JobQueries queries, DroverConfig config, MeterRegistry registry) {
        this.queries = queries;
        this.config = config;
        Gauge.builder("drover.due.backlog", this, g -> g.backlog)
                .description("Due jobs not locked by any node (whole cluster, capped at 1,000,000)")
                .register(registry);
    }

    void start(@Observes StartupEvent event) {
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("drover-backlog").factory());
        long every = config.backlogRefreshInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::refresh, 0, every, TimeUnit.MILLISECONDS);
    }

    private void refresh() {
        try {
            backlog = queries.dueBacklog();
        } catch (Exception e) {
            backlog = Double.NaN; // unknown, not zero: an autoscaler must not read an outage as "idle"
            LOG.debugf("Backlog refresh failed: %s", e.getMessage());
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
