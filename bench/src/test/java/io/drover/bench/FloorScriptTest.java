package io.drover.bench;

import org.junit.jupiter.api.Test;

import static io.drover.contract.JobSchema.ACQUIRE_ORDER;
import static io.drover.contract.JobSchema.DUE_AND_UNLOCKED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FloorScriptTest {
    @Test
    void twoCommitSendsTheExecutorsStatementsWithTheirParametersBound() {
        FloorScript s = FloorScript.twoCommit("floor", 3);
        String[] lines = s.pgbench().split("\n");
        assertThat(lines).hasSize(2);
        // Transaction 1: the executor's lockPage, the ids kept for transaction 2.
        assertThat(lines[0]).startsWith("with locked as (with picked as (select ctid from floor.job where "
                        + DUE_AND_UNLOCKED + " order by " + ACQUIRE_ORDER + " limit 3 for update skip locked)")
                .contains("set locked_by = 'floor-:client_id', lock_expires_at = now() + 60000 * interval")
                .endsWith(") select coalesce(array_agg(id), '{}') as ids from locked \\gset")
                .doesNotContain("?");
        assertThat(lines[1]).isEqualTo("delete from floor.job where id = any(':ids') and locked_by is not distinct from 'floor-:client_id';");
        assertThat(s.explained().get(1))
                .isEqualTo("delete from floor.job where id = any('{1,2,3}') and locked_by is not distinct from 'floor-0'");
        assertThat(s.explained().get(0)).doesNotContain(":client_id");
    }

    @Test
    void deleteOnlyLocksAndDeletesInOneStatement() {
        FloorScript s = FloorScript.deleteOnly("floor", 256);
        assertThat(s.pgbench()).isEqualTo("with picked as (select id from floor.job where " + DUE_AND_UNLOCKED
                + " order by " + ACQUIRE_ORDER + " limit 256 for update skip locked)"
                + " delete from floor.job j using picked where j.id = picked.id;\n");
        assertThat(s.explained()).hasSize(1);
    }

    @Test
    void bindNeedsOneValuePerParameter() {
        assertThat(FloorScript.bind("a = ? and b = ?", "1", "'x'")).isEqualTo("a = 1 and b = 'x'");
        assertThatThrownBy(() -> FloorScript.bind("a = ?", "1", "2")).hasMessageContaining("2 values for 1 parameters");
        assertThatThrownBy(() -> FloorScript.bind("a = ? and ?", "1")).hasMessageContaining("more parameters");
    }
}
