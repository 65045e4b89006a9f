package io.drover.executor.service;

import io.drover.contract.NodeProblem;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * How a start-up step's failure is judged: what waiting cannot fix ends the start at once, the
 * rest is retried until startupTimeout, and either way the node's last words use the words a
 * running node uses for the same database problem (the real database's answers: ExecutorJarIT).
 */
class DatabaseStartupTest {

    @Test
    void whatWaitingCannotFixEndsTheStartAtOnce() throws Exception {
        assertThat(failsAtOnce(new SQLException("password authentication failed", "28P01")))
                .isEqualTo(NodeProblem.DatabaseAuthenticationFailed);
        assertThat(failsAtOnce(new SQLException("no such database", "3D000"))).isEqualTo(NodeProblem.DatabaseNotFound);
        assertThat(failsAtOnce(new SQLException("permission denied", "42501"))).isEqualTo(NodeProblem.DatabasePermissionDenied);
        // Not the database's at all (a migration that does not validate): the migration's.
        assertThat(failsAtOnce(new IllegalStateException("Validate failed: checksum mismatch")))
                .isEqualTo(NodeProblem.MigrationFailed);
    }

    /** A step that finds what no waiting fixes (a database in another encoding) ends the start at once, with its reason. */
    @Test
    void anUnsuitableDatabaseEndsTheStartAtOnceWithItsReason() {
        AtomicInteger runs = new AtomicInteger();
        DatabaseStartup.Failed failed = catchThrowableOfType(DatabaseStartup.Failed.class, () -> DatabaseStartup.retry(
                "Checking the database", () -> {
                    runs.incrementAndGet();
                    throw new DatabaseStartup.Unsuitable(NodeProblem.StartupFailed, "the database jobs uses the encoding LATIN1");
                }, Duration.ofMinutes(1), d -> { }));
        assertThat(failed.problem()).isEqualTo(NodeProblem.StartupFailed);
        assertThat(failed.getMessage()).isEqualTo("Checking the database failed: the database jobs uses the encoding LATIN1");
        assertThat(runs).hasValue(1);
    }

    @Test
    void whatMayPassIsRetriedAndThenNamedAsARunningNodeWouldNameIt() throws Exception {
        assertThat(failsAfterTheTimeout(new SQLException("Connection refused", "08001"))).isEqualTo(NodeProblem.DatabaseUnreachable);
        assertThat(failsAfterTheTimeout(new SQLException("Acquisition timeout while waiting for new connection")))
                .isEqualTo(NodeProblem.DatabaseUnreachable);
        assertThat(failsAfterTheTimeout(new RuntimeException("Unable to obtain connection",
                new java.net.SocketException("Connection reset")))).isEqualTo(NodeProblem.DatabaseUnreachable);
        assertThat(failsAfterTheTimeout(new RuntimeException("no connection in time",
                new java.util.concurrent.TimeoutException()))).isEqualTo(NodeProblem.DatabaseUnreachable);
        // Until 2026-11-26 these three were all MigrationFailed at start-up.
        assertThat(failsAfterTheTimeout(new SQLException("cannot execute CREATE TABLE in a read-only transaction", "25006")))
                .isEqualTo(NodeProblem.DatabaseReadOnly);
        assertThat(failsAfterTheTimeout(new SQLException("too many connections", "53300")))
                .isEqualTo(NodeProblem.DatabaseOutOfResources);
        assertThat(failsAfterTheTimeout(new SQLException("canceling statement due to statement timeout", "57014")))
                .isEqualTo(NodeProblem.DatabaseTimeout);
        // A statement of a migration that the database refuses.
        assertThat(failsAfterTheTimeout(new SQLException("relation \"x\" does not exist", "42P01")))
                .isEqualTo(NodeProblem.MigrationFailed);
    }

    @Test
    void aStepThatRecoversStartsTheNodeAndEachFailureIsReportedInTheDiagnosisWords() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        List<String> status = new ArrayList<>();
        DatabaseStartup.retry("Migrating", () -> {
            if (tries.incrementAndGet() < 3) {
                throw new SQLException("Connection refused", "08001");
            }
        }, Duration.ofMinutes(1), d -> status.add("Migrating: " + d));
        assertThat(tries).hasValue(3);
        // In the diagnosis's words: the readiness check shows it to whoever asks, so never the driver's text.
        assertThat(status).containsExactly(
                "Migrating: DatabaseUnreachable: the database cannot be reached or ended the session (SQLState 08001)",
                "Migrating: DatabaseUnreachable: the database cannot be reached or ended the session (SQLState 08001)");
    }

    private static NodeProblem failsAtOnce(Exception failure) throws Exception {
        AtomicInteger tries = new AtomicInteger();
        DatabaseStartup.Failed failed = catchThrowableOfType(DatabaseStartup.Failed.class, () -> DatabaseStartup.retry(
                "Migrating", () -> {
                    tries.incrementAndGet();
                    throw failure;
                }, Duration.ofMinutes(1), s -> { }));
        assertThat(tries).as("tried once: " + failure).hasValue(1);
        assertThat(failed.getMessage()).startsWith("Migrating failed: ");
        return failed.problem();
    }

    private static NodeProblem failsAfterTheTimeout(Exception failure) throws Exception {
        AtomicInteger tries = new AtomicInteger();
        DatabaseStartup.Failed failed = catchThrowableOfType(DatabaseStartup.Failed.class, () -> DatabaseStartup.retry(
                "Migrating", () -> {
                    tries.incrementAndGet();
                    throw failure;
                }, Duration.ofMillis(300), s -> { }));
        assertThat(tries.get()).as("retried: " + failure).isGreaterThan(1);
        assertThat(failed.getMessage()).startsWith("Migrating still failing after startupTimeout");
        return failed.problem();
    }
}
