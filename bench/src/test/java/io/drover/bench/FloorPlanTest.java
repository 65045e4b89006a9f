package io.drover.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FloorPlanTest {
    @Test
    void namesTheIndexesAPlanWalksInOrder() {
        String plan = """
                Aggregate  (cost=1829.10..1829.11 rows=1 width=32)
                  CTE picked
                    ->  Limit  (cost=0.42..20.94 rows=256 width=22)
                          ->  LockRows  (cost=0.42..8014.42 rows=100000 width=22)
                                ->  Index Scan using job_acquire_idx on job  (cost=0.42..7014.42 rows=100000 width=22)
                  CTE locked
                    ->  Update on job j  (cost=0.29..1802.40 rows=256 width=82)
                          ->  Nested Loop  (cost=0.29..1802.40 rows=256 width=82)
                                ->  Index Scan using job_pkey on job j  (cost=0.29..7.01 rows=1 width=18)
                                ->  Index Scan Backward using job_pkey on job j  (cost=0.29..7.01 rows=1 width=18)
                                ->  Bitmap Index Scan on job_lock_expiry_idx  (cost=0.00..4.3 rows=1 width=0)
                """;
        assertThat(FloorPlan.indexes(plan)).containsExactly("job_acquire_idx", "job_pkey", "job_lock_expiry_idx");
        assertThat(FloorPlan.indexes("Seq Scan on job  (cost=0.00..1.00 rows=1 width=6)")).isEmpty();
    }
}
