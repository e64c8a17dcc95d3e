-- Error management (service-interface.md 2.2-2.6, api-contract.md section 6): the error
-- workflow's own columns, comments, watchers and their webhook deliveries.

-- The kind of discrepancy picks the standard message (carrier value differs, carrier lacks it,
-- platform lacks it, value invalid). `dedupe_key` identifies "the same discrepancy" for errors
-- the service raises itself (one per coverage period, source, parameter, member and plan), so a
-- repeated check updates or reopens the error it raised before instead of adding another;
-- errors raised by people (manual, error_report) have none and never merge.
ALTER TABLE errors
  ADD COLUMN discrepancy_kind text NOT NULL DEFAULT 'value_invalid'
    CHECK (discrepancy_kind IN ('carrier_value_differs', 'carrier_missing', 'platform_missing', 'value_invalid')),
  ADD COLUMN dedupe_key text,
  ADD COLUMN resolved_by_user_id uuid REFERENCES users (id),
  ADD COLUMN reopened_at timestamptz,
  -- Census request that last raised, reopened or resolved the error (issue 5 adds the table).
  ADD COLUMN census_request_id uuid,
  -- Kept by a trigger on error_comments: a page of the queue looks comments up only for the
  -- errors that have some, instead of probing for every one.
  ADD COLUMN comment_count integer NOT NULL DEFAULT 0,
  ADD CONSTRAINT errors_discrepancy_parameter_check CHECK (discrepancy_parameter IN (
    'birth_date', 'gender', 'marital_status', 'earnings_effective_date', 'employment_start_date',
    'employment_end_date', 'annual_earnings', 'wage_frequency', 'employment_status',
    'residential_address', 'primary_care_provider', 'social_security_number', 'plan_id',
    'plan_start_date', 'plan_end_date', 'subscriber', 'dependent', 'coverage', 'plan_volume',
    'tobacco_use', 'region', 'emails', 'phone_numbers'));

-- The PCP errors complete setup raised before this migration: a platform-side gap, deduplicated
-- like the ones it raises from now on.
UPDATE errors
   SET discrepancy_kind = 'platform_missing',
       message = 'A primary care provider selection is required for this HMO enrollment.',
       dedupe_key = 'api:primary_care_provider:' || coalesce(member_id::text, '-') || ':' || coalesce(plan_id::text, '-')
 WHERE source = 'api' AND discrepancy_parameter = 'primary_care_provider';

CREATE UNIQUE INDEX errors_dedupe_key ON errors (coverage_period_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
-- The queue without filters, and with one of assignee or severity/source/parameter alone, stays
-- an index range scan in creation order (the 0002 index covers status + assignee).
CREATE INDEX errors_coverage_period_created_idx ON errors (coverage_period_id, created_at, id);
CREATE INDEX errors_coverage_period_assignee_idx ON errors (coverage_period_id, assignee, created_at, id);
-- GET /errors, the queue across coverage periods: a partner's (status, assignee) in creation order,
-- and the operators' one over every account.
CREATE INDEX errors_account_queue_idx ON errors (account_id, status, assignee, created_at, id);
CREATE INDEX errors_queue_idx ON errors (status, assignee, created_at, id);

-- The Total of the error queue (GET .../errors?status=&assignee=) without counting tens of
-- thousands of rows per page: every statement that writes errors appends its net change per
-- (coverage period, status, assignee), and a total is the sum of a few rows. Appending, rather
-- than updating one counter row, means writers never wait on each other nor deadlock; the rows
-- of a coverage period are folded together now and then by whichever writer gets its lock.
CREATE TABLE error_counts (
  account_id         uuid NOT NULL,
  coverage_period_id uuid NOT NULL,
  group_id           uuid NOT NULL,
  status             text NOT NULL,
  assignee           text NOT NULL,
  delta              integer NOT NULL
);
CREATE INDEX error_counts_coverage_period_idx ON error_counts (coverage_period_id, status, assignee);
CREATE INDEX error_counts_account_idx ON error_counts (account_id, status, assignee);

INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, delta)
SELECT account_id, coverage_period_id, group_id, status, assignee, count(*) FROM errors
 GROUP BY account_id, coverage_period_id, group_id, status, assignee;

CREATE FUNCTION error_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- About one statement in twenty also folds the rows of a coverage period it wrote.
  fold boolean := random() < 0.05;
  period uuid;
BEGIN
  -- Each branch names only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, count(*) FROM new_errors
     GROUP BY account_id, coverage_period_id, group_id, status, assignee;
    IF fold THEN SELECT coverage_period_id INTO period FROM new_errors LIMIT 1; END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, sum(delta) FROM (
      SELECT account_id, coverage_period_id, group_id, status, assignee, 1 AS delta FROM new_errors
      UNION ALL
      SELECT account_id, coverage_period_id, group_id, status, assignee, -1 FROM old_errors) changes
     GROUP BY account_id, coverage_period_id, group_id, status, assignee
    HAVING sum(delta) <> 0;
    IF fold THEN SELECT coverage_period_id INTO period FROM new_errors LIMIT 1; END IF;
  ELSE
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, -count(*) FROM old_errors
     GROUP BY account_id, coverage_period_id, group_id, status, assignee;
    IF fold THEN SELECT coverage_period_id INTO period FROM old_errors LIMIT 1; END IF;
  END IF;
  -- The advisory lock (held to the end of the transaction) is only tried: one writer folds a
  -- coverage period at a time and no writer ever waits for another's folding. Rows appended by
  -- transactions not yet committed are not seen, so not deleted: the sums stay exact.
  IF period IS NOT NULL AND pg_try_advisory_xact_lock(hashtext('error_counts'), hashtext(period::text)) THEN
    WITH folded AS (DELETE FROM error_counts WHERE coverage_period_id = period RETURNING *)
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, sum(delta) FROM folded
     GROUP BY account_id, coverage_period_id, group_id, status, assignee
    HAVING sum(delta) <> 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER error_counts_on_insert AFTER INSERT ON errors
  REFERENCING NEW TABLE AS new_errors FOR EACH STATEMENT EXECUTE FUNCTION error_counts_record();
CREATE TRIGGER error_counts_on_update AFTER UPDATE ON errors
  REFERENCING OLD TABLE AS old_errors NEW TABLE AS new_errors FOR EACH STATEMENT EXECUTE FUNCTION error_counts_record();
CREATE TRIGGER error_counts_on_delete AFTER DELETE ON errors
  REFERENCING OLD TABLE AS old_errors FOR EACH STATEMENT EXECUTE FUNCTION error_counts_record();

-- The error resource as JSON text, rendered on every write: the queue reads errors far more often
-- than they change, and building ~20 keys per error on each read was most of a page's database
-- time. It is rendered as for an error without creator or comments (most errors the service
-- raises), which reads answer as is; for the others they replace that prefix with the creator and
-- comments (errors.repo.ts). A change of the error resource's shape replaces this function in a
-- later migration and re-renders the rows.
CREATE FUNCTION errors_render() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rendered := '{"created_by":null,"comments":[],' || substr(json_build_object(
    'id', NEW.id, 'coverage_period_id', NEW.coverage_period_id, 'group_id', NEW.group_id,
    'member_id', NEW.member_id, 'plan_id', NEW.plan_id, 'assignee', NEW.assignee,
    'created_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'reopened_at', to_char(NEW.reopened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'discrepancy', json_build_object('carrier', NEW.discrepancy_carrier, 'platform', NEW.discrepancy_platform,
                                     'parameter', NEW.discrepancy_parameter, 'kind', NEW.discrepancy_kind),
    'message', NEW.message,
    'resolution', CASE WHEN NEW.status = 'resolved' AND NEW.resolved_at IS NOT NULL THEN json_build_object(
      'message', coalesce(NEW.resolution_message, ''),
      'created_at', to_char(NEW.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'resolved_by', coalesce(NEW.resolved_by, '')) END,
    'resolution_message', NEW.resolution_message, 'severity', NEW.severity, 'status', NEW.status,
    'source', NEW.source, 'transaction_ids', NEW.transaction_ids,
    -- Issue 5 links census requests (census_request_id); until then there is none to show.
    'census_requests', NULL)::text, 2);
  RETURN NEW;
END $$;
ALTER TABLE errors ADD COLUMN rendered text;
CREATE TRIGGER errors_render BEFORE INSERT OR UPDATE ON errors FOR EACH ROW EXECUTE FUNCTION errors_render();
UPDATE errors SET rendered = NULL;
ALTER TABLE errors ALTER COLUMN rendered SET NOT NULL;

CREATE TABLE error_comments (
  id                 uuid PRIMARY KEY,
  -- The account the error belongs to (the tenant), whoever wrote the comment.
  account_id         uuid NOT NULL REFERENCES accounts (id),
  error_id           uuid NOT NULL REFERENCES errors (id),
  message            text NOT NULL,
  created_by_user_id uuid REFERENCES users (id),
  sent_by            text NOT NULL CHECK (sent_by IN ('partner', 'service')),
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX error_comments_error_idx ON error_comments (error_id, created_at, id);

CREATE FUNCTION error_comments_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE errors e SET comment_count = e.comment_count + added.n
      FROM (SELECT error_id, count(*) AS n FROM new_comments GROUP BY error_id) added WHERE e.id = added.error_id;
  ELSE
    UPDATE errors e SET comment_count = e.comment_count - removed.n
      FROM (SELECT error_id, count(*) AS n FROM old_comments GROUP BY error_id) removed WHERE e.id = removed.error_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER error_comments_count_on_insert AFTER INSERT ON error_comments
  REFERENCING NEW TABLE AS new_comments FOR EACH STATEMENT EXECUTE FUNCTION error_comments_count();
CREATE TRIGGER error_comments_count_on_delete AFTER DELETE ON error_comments
  REFERENCING OLD TABLE AS old_comments FOR EACH STATEMENT EXECUTE FUNCTION error_comments_count();

-- Subscriptions to events. The secret signs deliveries (Standard Webhooks); during a rotation the
-- previous one keeps signing beside the new one until it expires.
CREATE TABLE watchers (
  id                         uuid PRIMARY KEY,
  account_id                 uuid NOT NULL REFERENCES accounts (id),
  url                        text NOT NULL,
  event_types                text[] NOT NULL CHECK (cardinality(event_types) > 0),
  coverage_period_id         uuid REFERENCES coverage_periods (id),
  group_id                   uuid REFERENCES groups (id),
  description                text,
  secret                     text NOT NULL,
  previous_secret            text,
  previous_secret_expires_at timestamptz,
  status                     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason            text,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  -- Deleted watchers are kept so their deliveries stay explainable; they answer 404.
  deleted_at                 timestamptz
);
CREATE INDEX watchers_account_idx ON watchers (account_id, created_at, id) WHERE deleted_at IS NULL;

-- One event for one watcher. `id` is the Standard Webhooks `webhook-id`: the same on every retry,
-- so a receiver can drop duplicates. `account_id` is the watcher's account, which for an operator's
-- watcher is not the account the event concerns (that one is in the payload).
CREATE TABLE watcher_deliveries (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts (id),
  watcher_id       uuid NOT NULL REFERENCES watchers (id),
  event_id         uuid NOT NULL,
  event_type       text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  last_status_code integer,
  last_error       text,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watcher_deliveries_watcher_idx ON watcher_deliveries (watcher_id, created_at, id);

CREATE TABLE watcher_delivery_attempts (
  id          uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES watcher_deliveries (id),
  attempt     integer NOT NULL,
  started_at  timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error       text,
  outcome     text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  UNIQUE (delivery_id, attempt)
);
