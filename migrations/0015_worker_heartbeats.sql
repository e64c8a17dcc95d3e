-- Live workers (issue 15). Every started worker beats here every WORKER_HEARTBEAT_MS; one silent
-- for its dead_after_ms (WORKER_DEAD_AFTER_MS, its own, so workers configured differently during
-- a rolling change judge each other fairly) is presumed dead: its row goes and its running jobs
-- are released, so a killed worker's jobs come back in seconds instead of after the stale window.
-- on_time_since is when the worker's current run of punctual beats began: only a worker that has
-- itself beaten on time for the whole window judges others (a stall they all share is nobody's death).
CREATE TABLE worker_heartbeats (
  id            text PRIMARY KEY,
  started_at    timestamptz NOT NULL DEFAULT now(),
  heartbeat_at  timestamptz NOT NULL DEFAULT now(),
  on_time_since timestamptz NOT NULL DEFAULT now(),
  dead_after_ms integer NOT NULL CHECK (dead_after_ms > 0)
);

-- Releasing a dead worker's jobs looks them up by the worker that holds them.
CREATE INDEX jobs_locked_by_idx ON jobs (locked_by) WHERE status = 'running';
