-- Issue 17, the operators' daily queue: errors assigned to a person, their age, sorting, search,
-- counts by severity, and a history of everything that happened to each error.

ALTER TABLE errors
  -- The person of the holding party (`assignee`) working the error; cleared when the party changes.
  ADD COLUMN assigned_user_id uuid REFERENCES users (id),
  -- When the error last landed in a party's queue: raised, reopened or handed back (returned).
  -- `age_seconds` counts from it, and sorting by age reads this index-friendly column.
  ADD COLUMN aged_from timestamptz,
  -- The orders the queue sorts severity and status in (most pressing first), as columns so an
  -- index serves the sort.
  ADD COLUMN severity_rank smallint GENERATED ALWAYS AS (CASE severity WHEN 'failure' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END) STORED,
  ADD COLUMN status_rank smallint GENERATED ALWAYS AS (CASE status WHEN 'unresolved' THEN 0 WHEN 'returned' THEN 1 ELSE 2 END) STORED;

-- Before this migration a return was not dated: a returned error's last change is its return
-- unless someone commented since, which is the best there is.
UPDATE errors SET aged_from = CASE WHEN status = 'returned' THEN updated_at ELSE greatest(created_at, reopened_at) END;
ALTER TABLE errors ALTER COLUMN aged_from SET NOT NULL;

-- Kept by the database so every writer (checks, reconciliation, people) agrees: an error ages
-- from its raising, its reopening or its return; and a person of one party never keeps holding an
-- error handed to the other party (a return or a reopening that changes the assignee clears it).
CREATE FUNCTION errors_queue_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.aged_from := coalesce(NEW.aged_from, NEW.created_at);
  ELSE
    IF (NEW.status = 'returned' AND OLD.status <> 'returned') OR (OLD.status = 'resolved' AND NEW.status <> 'resolved') THEN
      NEW.aged_from := NEW.updated_at;
    END IF;
    IF NEW.assignee <> OLD.assignee THEN
      NEW.assigned_user_id := NULL;
    END IF;
  END IF;
  RETURN NEW;
END $$;
-- Before errors_render (triggers of one kind fire in name order); it renders none of these columns.
CREATE TRIGGER errors_a_queue_columns BEFORE INSERT OR UPDATE ON errors FOR EACH ROW EXECUTE FUNCTION errors_queue_columns();

-- Sorted pages of one coverage period's queue (the big one) and of the cross-period queues.
CREATE INDEX errors_cp_age_idx ON errors (coverage_period_id, aged_from, id);
CREATE INDEX errors_cp_severity_idx ON errors (coverage_period_id, severity_rank, aged_from, id);
CREATE INDEX errors_cp_status_rank_idx ON errors (coverage_period_id, status_rank, aged_from, id);
CREATE INDEX errors_cp_parameter_idx ON errors (coverage_period_id, discrepancy_parameter, aged_from, id);
CREATE INDEX errors_account_age_idx ON errors (account_id, aged_from, id);
CREATE INDEX errors_age_idx ON errors (aged_from, id);
CREATE INDEX errors_group_idx ON errors (group_id, created_at, id);
CREATE INDEX errors_assigned_user_idx ON errors (assigned_user_id, created_at, id) WHERE assigned_user_id IS NOT NULL;
-- A search finds its members first, then their errors: counted by status and severity from the
-- index alone (a plain member_id index read every matching error's row).
DROP INDEX errors_member_idx;
CREATE INDEX errors_member_idx ON errors (member_id, coverage_period_id, status, severity);

-- Search (`q`) is a case-insensitive substring match over member names and identifiers and
-- employer names: trigram indexes (pg_trgm) answer it without reading every member of a large
-- group. pg_trgm is trusted since PostgreSQL 13 (a database owner may create it); PGlite loads it
-- in database.ts. It goes in `public` when there is one: installed in the schema being migrated,
-- dropping that schema (as tests drop theirs) would drop the extension and, with it, the indexes
-- of every other schema. The indexes name its operator class by schema, so a schema whose
-- search_path does not include the extension's still finds it. The expressions are repeated
-- verbatim by errors.repo.ts (searchCondition): PostgreSQL uses an expression index only for the
-- same expression. (The migrator's advisory lock keeps two migrations from creating it at once.)
DO $$
DECLARE
  home text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public') THEN
      CREATE EXTENSION pg_trgm WITH SCHEMA public;
    ELSE
      CREATE EXTENSION pg_trgm;
    END IF;
  END IF;
  SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  EXECUTE format('CREATE INDEX members_search_idx ON members USING gin ((lower(first_name || '' '' || last_name || '' '' || external_identifier)) %I.gin_trgm_ops)', home);
  EXECUTE format('CREATE INDEX groups_search_idx ON groups USING gin ((lower(organization_name || '' '' || external_identifier)) %I.gin_trgm_ops)', home);
END $$;

-- Counts by severity as well as status and assignee (GET /errors/counts), from the same few
-- appended rows the list totals sum (migration 0003): the table is recomputed with the new column.
ALTER TABLE error_counts ADD COLUMN severity text;
DELETE FROM error_counts;
INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, severity, delta)
SELECT account_id, coverage_period_id, group_id, status, assignee, severity, count(*) FROM errors
 GROUP BY account_id, coverage_period_id, group_id, status, assignee, severity;
ALTER TABLE error_counts ALTER COLUMN severity SET NOT NULL;

CREATE OR REPLACE FUNCTION error_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- About one statement in twenty also folds the rows of a coverage period it wrote.
  fold boolean := random() < 0.05;
  period uuid;
BEGIN
  -- Each branch names only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, severity, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, severity, count(*) FROM new_errors
     GROUP BY account_id, coverage_period_id, group_id, status, assignee, severity;
    IF fold THEN SELECT coverage_period_id INTO period FROM new_errors LIMIT 1; END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, severity, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, severity, sum(delta) FROM (
      SELECT account_id, coverage_period_id, group_id, status, assignee, severity, 1 AS delta FROM new_errors
      UNION ALL
      SELECT account_id, coverage_period_id, group_id, status, assignee, severity, -1 FROM old_errors) changes
     GROUP BY account_id, coverage_period_id, group_id, status, assignee, severity
    HAVING sum(delta) <> 0;
    IF fold THEN SELECT coverage_period_id INTO period FROM new_errors LIMIT 1; END IF;
  ELSE
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, severity, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, severity, -count(*) FROM old_errors
     GROUP BY account_id, coverage_period_id, group_id, status, assignee, severity;
    IF fold THEN SELECT coverage_period_id INTO period FROM old_errors LIMIT 1; END IF;
  END IF;
  -- See migration 0003: folding is only tried, and sees only committed rows, so sums stay exact.
  IF period IS NOT NULL AND pg_try_advisory_xact_lock(hashtext('error_counts'), hashtext(period::text)) THEN
    WITH folded AS (DELETE FROM error_counts WHERE coverage_period_id = period RETURNING *)
    INSERT INTO error_counts (account_id, coverage_period_id, group_id, status, assignee, severity, delta)
    SELECT account_id, coverage_period_id, group_id, status, assignee, severity, sum(delta) FROM folded
     GROUP BY account_id, coverage_period_id, group_id, status, assignee, severity
    HAVING sum(delta) <> 0;
  END IF;
  RETURN NULL;
END $$;

-- Everything that happened to an error, oldest first (GET /errors/{id}/history). Written by the
-- service beside each error event (error-events.ts); `actor` is what a person reads (an email,
-- an API key's name, or "reconciliation"), never personal data of members.
CREATE TABLE error_history (
  id               uuid PRIMARY KEY,
  error_id         uuid NOT NULL REFERENCES errors (id) ON DELETE CASCADE,
  account_id       uuid NOT NULL REFERENCES accounts (id),
  type             text NOT NULL CHECK (type IN ('raised', 'commented', 'returned', 'assigned', 'unassigned', 'resolved', 'reopened', 'auto_resolved')),
  actor            text,
  party            text CHECK (party IN ('partner', 'service')),
  user_id          uuid REFERENCES users (id),
  comment_id       uuid REFERENCES error_comments (id),
  assigned_user_id uuid REFERENCES users (id),
  from_status      text,
  to_status        text,
  assignee         text,
  created_at       timestamptz NOT NULL
);
CREATE INDEX error_history_error_idx ON error_history (error_id, created_at, id);

-- The history of the errors that exist already, from what was kept: their raising, comments,
-- last reopening and resolution (earlier cycles of resolve and reopen were not kept).
INSERT INTO error_history (id, error_id, account_id, type, actor, party, user_id, to_status, assignee, created_at)
SELECT gen_random_uuid(), e.id, e.account_id, 'raised',
       coalesce(u.email, CASE WHEN e.source = 'reconciliation' THEN 'reconciliation' END), CASE WHEN u.id IS NOT NULL THEN 'service' END,
       e.created_by_user_id, 'unresolved', e.assignee, e.created_at
  FROM errors e LEFT JOIN users u ON u.id = e.created_by_user_id;
INSERT INTO error_history (id, error_id, account_id, type, actor, party, user_id, comment_id, created_at)
SELECT gen_random_uuid(), c.error_id, c.account_id, 'commented', u.email, c.sent_by, c.created_by_user_id, c.id, c.created_at
  FROM error_comments c LEFT JOIN users u ON u.id = c.created_by_user_id;
INSERT INTO error_history (id, error_id, account_id, type, to_status, assignee, created_at)
SELECT gen_random_uuid(), id, account_id, 'reopened', 'unresolved', assignee, reopened_at FROM errors WHERE reopened_at IS NOT NULL;
INSERT INTO error_history (id, error_id, account_id, type, actor, user_id, to_status, created_at)
SELECT gen_random_uuid(), id, account_id, CASE WHEN resolved_by = 'reconciliation' THEN 'auto_resolved' ELSE 'resolved' END,
       resolved_by, resolved_by_user_id, 'resolved', resolved_at
  FROM errors WHERE status = 'resolved' AND resolved_at IS NOT NULL;
