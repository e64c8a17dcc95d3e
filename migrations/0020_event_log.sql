-- Every event the service emits, whether or not a watcher wants it, for GET /events/stream
-- (server-sent events, resumable with Last-Event-ID). Written by emitEvents in the transaction of
-- the change, with the payload id the watchers' deliveries carry.
--
-- A stream's cursor is (tx_id, seq), not seq alone: seq is drawn when the row is inserted, long
-- before its transaction commits, so a reader that had passed seq 12 could never see a seq 11
-- committed after it. The stream hands out only rows whose transaction is older than the oldest
-- transaction still running (tx_id < pg_snapshot_xmin(pg_current_snapshot())): every such
-- transaction has ended, so no row can later appear before the cursor.
--
-- payload is the exact JSON text of the webhook body ({id, type, timestamp, account_id, data}: ids
-- and statuses, never personal data), kept as json so it is sent as written. No foreign key to
-- accounts: the row is a log entry written with every change, purged after a retention period
-- (EVENT_LOG_RETENTION_DAYS), and the change that wrote it already names an existing account.
CREATE TABLE event_log (
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  id                 uuid NOT NULL,
  account_id         uuid NOT NULL,
  coverage_period_id uuid,
  group_id           uuid,
  type               text NOT NULL,
  payload            json NOT NULL,
  tx_id              xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tx_id, seq)
);
-- An operator's stream reads every account after its cursor (the primary key); a partner's reads
-- its own account after its cursor here.
CREATE INDEX event_log_account_cursor_idx ON event_log (account_id, tx_id, seq);
-- Retention deletes the oldest rows.
CREATE INDEX event_log_created_at_idx ON event_log (created_at);
