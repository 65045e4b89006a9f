-- A recurring timer's grid, kept while the timer is handed back off it. A hand-back (a shutdown
-- cut its run short, its start was refused, no handler on this node) sets due_at to now() plus a
-- delay, off the timer's grid; the next slot was counted from that due_at, so every later slot
-- moved with it, for good (a daily 02:00 timer interrupted by a rolling deploy ran at 02:30:07
-- from then on). grid_at keeps a slot of the grid from the first hand-back until the next run is
-- written, and the next slot counts from it (JobSql). Null otherwise: due_at is on the grid.
-- Older nodes ignore it (they move timers as before); a grid_at they leave behind is still a
-- slot of the timer's grid.
-- A nullable column: its lock for an instant (V4's rules).
set local lock_timeout = '5s';

alter table job add column grid_at timestamptz;
