package io.drover.contract;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A failure's diagnosis: the reason word the operator shows, and a sentence without driver text. */
class DatabaseDiagnosisTest {
    private static final String DRIVER_TEXT = "ERROR: permission denied for table job (user drover on db.internal)";

    @Test
    void eachKindOfFailureHasItsReasonAndNeverTheDriversText() {
        assertThat(reason("25006")).isEqualTo("DatabaseReadOnly");
        assertThat(reason("28P01")).isEqualTo("DatabaseAuthenticationFailed");
        assertThat(reason("3D000")).isEqualTo("DatabaseNotFound");
        assertThat(reason("42501")).isEqualTo("DatabasePermissionDenied");
        assertThat(reason("53300")).isEqualTo("DatabaseOutOfResources");
        assertThat(reason("08006")).isEqualTo("DatabaseUnreachable");
        assertThat(reason("57P01")).isEqualTo("DatabaseUnreachable");
        assertThat(reason("57014")).isEqualTo("DatabaseTimeout");
        assertThat(reason("42P01")).isEqualTo("DatabaseError");
        for (String state : new String[]{"25006", "28P01", "42501", "08006", "42P01"}) {
            DatabaseDiagnosis d = DatabaseDiagnosis.of(new SQLException(DRIVER_TEXT, state));
            assertThat(d.message()).contains("SQLState " + state).doesNotContain("drover").doesNotContain("db.internal");
            assertThat(d.toString()).isEqualTo(d.reason() + ": " + d.message());
        }
    }

    @Test
    void aTimeoutAndANonDatabaseFailureAreToldApart() {
        SQLException timedOut = new SQLException("An I/O error occurred", "08006", new SocketTimeoutException("Read timed out"));
        assertThat(DatabaseDiagnosis.of(timedOut).message()).startsWith("the database does not answer within the timeout");
        DatabaseDiagnosis bug = DatabaseDiagnosis.of(new IllegalStateException("a bug"));
        assertThat(bug.reason()).isEqualTo("ExecutorError");
        assertThat(bug.message()).contains("IllegalStateException").doesNotContain("a bug");
    }

    /**
     * Two wrappers that name each other (initCause refuses only a throwable naming itself): the
     * engine's loops diagnose every failure, and a walk without an end would spin the loop forever
     * with health still green. The timeout turns such a regression into a failure, not a hang.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCyclicChainIsDiagnosed() {
        IllegalStateException a = new IllegalStateException("pool");
        IllegalStateException b = new IllegalStateException("wrapper", a);
        a.initCause(b);

        assertThat(DatabaseDiagnosis.of(a).reason()).isEqualTo("ExecutorError");
        assertThat(DatabaseDiagnosis.timedOut(a)).isFalse();
        assertThat(DatabaseDiagnosis.unreachable(a)).as("no SQLState: treated as unreachable").isTrue();
    }

    private static String reason(String state) {
        return DatabaseDiagnosis.of(new SQLException(DRIVER_TEXT, state)).reason();
    }
}
