-- A recurring timer's grid, kept in dead letters. A recurring timer dead-lettered (sixty
-- hand-backs during a long rolling deploy, poison, a row out of range) and then retried was put
-- back due now() with no grid, so its next slot was counted from the moment of the retry, for
-- good (a daily 02:00 timer retried at 14:37 ran at 14:37 from then on): the drift V8 ended for
-- hand-backs. grid_at keeps a slot of its grid (the job's grid_at, else its due_at) from the move
-- to dead letters; a retry puts it back in the job's grid_at (JobSql). Null for other jobs, and
-- for dead letters older nodes write (a retry then anchors the grid on the dead letter's due_at).
-- A nullable column: its lock for an instant (V4's rules).
set local lock_timeout = '5s';

alter table dead_letter add column grid_at timestamptz;
