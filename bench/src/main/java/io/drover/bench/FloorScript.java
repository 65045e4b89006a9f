package io.drover.bench;

import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.contract.JobSchema;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * The pgbench script of one variant of the SQL floor, and its statements as EXPLAIN sees them.
 * The two-commit variant sends the executor's own statements (JobSql), their JDBC parameters
 * bound as literals and pgbench variables, so the floor follows any change to them.
 *
 * @param name      how the report names the variant
 * @param batch     jobs per page
 * @param pgbench   the script, one transaction per line
 * @param explained its statements with the variables bound to a first page's values
 */
record FloorScript(String name, int batch, String pgbench, List<String> explained) {
    /** A lock owner per pgbench client, as each executor node has its own. */
    private static final String OWNER = "'floor-:client_id'";
    private static final String LOCK_EXPIRY_MILLIS = "60000";

    /**
     * What the executor does per page: one transaction locks the page (lockPage, SKIP LOCKED),
     * a second deletes the done jobs (deleteDone), the ids carried from one to the other in a
     * pgbench variable. Two commits per page.
     */
    static FloorScript twoCommit(String schema, int batch) {
        JobSql sql = new JobSql(new Tables(schema));
        // One row back (the ids), for \gset; the executor receives the page's rows instead.
        String lock = "with locked as (" + bind(sql.lockPage(true), Integer.toString(batch), OWNER, LOCK_EXPIRY_MILLIS)
                + ") select coalesce(array_agg(id), '{}') as ids from locked";
        String delete = bind(sql.deleteDone(), "':ids'", OWNER);
        String firstPage = LongStream.rangeClosed(1, batch).mapToObj(Long::toString)
                .collect(Collectors.joining(",", "'{", "}'"));
        return new FloorScript("two-commit", batch, lock + " \\gset\n" + delete + ";\n",
                List.of(lock.replace(":client_id", "0"), delete.replace("':ids'", firstPage).replace(":client_id", "0")));
    }

    /** One transaction per page locks it and deletes it: one commit, no lock ever written. */
    static FloorScript deleteOnly(String schema, int batch) {
        String job = JobSchema.jobTable(schema);
        String statement = "with picked as (select id from " + job + " where " + JobSchema.DUE_AND_UNLOCKED
                + " order by " + JobSchema.ACQUIRE_ORDER + " limit " + batch + " for update skip locked)"
                + " delete from " + job + " j using picked where j.id = picked.id";
        return new FloorScript("delete-only", batch, statement + ";\n", List.of(statement));
    }

    /** Replaces the statement's JDBC parameters, in order, by the given SQL text. */
    static String bind(String statement, String... values) {
        StringBuilder out = new StringBuilder();
        int next = 0;
        for (char c : statement.toCharArray()) {
            if (c == '?' && next == values.length) {
                throw new IllegalArgumentException("more parameters than " + next + " values: " + statement);
            } else if (c == '?') {
                out.append(values[next++]);
            } else {
                out.append(c);
            }
        }
        if (next != values.length) {
            throw new IllegalArgumentException(values.length + " values for " + next + " parameters: " + statement);
        }
        return out.toString();
    }
}
