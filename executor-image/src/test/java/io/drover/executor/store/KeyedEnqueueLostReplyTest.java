package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.DroppedConnection;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an idempotency key is for: a producer whose keyed enqueue failed on a connection error
 * cannot tell whether it was written, and calls again with the key. The connection drops at the
 * enqueue's COMMIT on a real PostgreSQL; either the server committed (the answer was lost) or it
 * did not. Either way the jobs are there once after the second call, and the second call's ids
 * are theirs: the earlier call's, marked replayed, when it had committed.
 */
class KeyedEnqueueLostReplyTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @ParameterizedTest(name = "committed: {0}")
    @ValueSource(booleans = {true, false})
    void aKeyedCallRepeatedAfterItsCommitFailedWritesTheJobsOnce(boolean committed) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Tables tables = new Tables(schema);
        String claim = new JobSql(tables).claimEnqueueKey();
        DroppedConnection network = committed ? DroppedConnection.afterCommit(db, claim) : DroppedConnection.beforeCommit(db, claim);
        JobEnqueuer enqueuer = new JobEnqueuer(network, tables);
        List<JobEnqueuer.NewJob> two = List.of(JobEnqueuer.NewJob.now("noop", "1", 3), JobEnqueuer.NewJob.now("noop", "2", 3));
        byte[] request = "the request's digest".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> enqueuer.enqueue(two, "order-7", request)).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(SqlErrors.connectionLost((SQLException) e)).as("a connection error").isTrue());
        assertThat(network.awaitDropped(Duration.ofSeconds(5))).isTrue();
        network.reconnect();

        JobEnqueuer.Enqueued again = enqueuer.enqueue(two, "order-7", request);
        Jobs jobs = new Jobs(db, schema);
        assertThat(jobs.count("select count(*) from {s}.job")).as("written once").isEqualTo(2);
        long[] written = Arrays.stream(jobs.text("select string_agg(id::text, ',' order by id) from {s}.job").split(","))
                .mapToLong(Long::parseLong).toArray();
        assertThat(again.ids()).as("the ids of the jobs written").containsExactly(written);
        assertThat(again.replayed()).as("the first call's jobs, replayed, when it had committed").isEqualTo(committed);
        assertThat(jobs.text("select string_agg(payload::text, ',' order by id) from {s}.job")).isEqualTo("1,2");
    }
}
