package io.drover.executor.engine;

import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;

/**
 * Holds one connection that LISTENs on the schema's channel and wakes the acquirer when jobs
 * are inserted (a trigger notifies; see V2__notify_new_jobs.sql) or handed back by another
 * node. Without it a new job waits for the next poll, up to {@code acquireInterval}; polling
 * remains the fallback, e.g. behind a pooler in transaction mode, which drops notifications.
 */
final class JobNotificationListener {
    private static final Logger LOG = Logger.getLogger(JobNotificationListener.class);
    private static final int POLL_MILLIS = 500;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable onNotification;
    private final ProblemLog problems = new ProblemLog(LOG, "Listening for new jobs");
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Connection connection;

    JobNotificationListener(DataSource dataSource, String channel, Runnable onNotification, String nodeName) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.onNotification = onNotification;
        this.thread = Thread.ofPlatform().daemon().name("drover-listener-" + nodeName).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long backoff = 100;
        while (!stopping) {
            try (Connection c = dataSource.getConnection()) {
                connection = c;
                try (Statement s = c.createStatement()) {
                    s.execute("listen " + channel);
                }
                problems.succeeded();
                backoff = 100;
                // Jobs may have arrived while not listening: look once.
                onNotification.run();
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!stopping) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        onNotification.run();
                    }
                }
            } catch (Exception e) {
                if (stopping) {
                    return;
                }
                problems.failed(e);
                sleep(backoff);
                backoff = Math.min(backoff * 2, 10_000);
            } finally {
                connection = null;
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }

    void stop() throws InterruptedException {
        stopping = true;
        thread.join(java.time.Duration.ofMillis(POLL_MILLIS * 4L));
    }
}
