-- The names an error answer carries (member, plan, employer, account, assigned person) are
-- rendered into errors.rendered when the error is written, as the rest of the answer is, instead
-- of being looked up and spliced in on every read: building them per read cost a queue page of
-- 100 errors about 1.2 ms of database time, and took issue 4's queue page from 34-37 ms to
-- 55-75 ms p99 (bench/RESULTS.md, 2026-11-27 05:37). Only the age, which grows, is added at
-- read time. When a name changes, the errors showing it are rendered again (the triggers below):
-- renames are rare, reads are the queue's every page. An employer renamed with 100,000 errors
-- rewrites those rows in the rename's transaction.
CREATE OR REPLACE FUNCTION errors_render() RETURNS trigger LANGUAGE plpgsql AS $$
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
    -- A census request is written once, completed, before any error links it: the copy stays true.
    'census_requests', (SELECT json_build_object(
        'id', c.id, 'status', c.status, 'coverage_period_id', c.coverage_period_id,
        'created_at', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'errors', c.errors)
      FROM census_requests c WHERE c.id = NEW.census_request_id),
    -- What a person reads in the queue (issue 17), kept current by the triggers below.
    'assigned_user', (SELECT json_build_object('id', u.id, 'email', u.email) FROM users u WHERE u.id = NEW.assigned_user_id),
    'member_name', (SELECT m.first_name || ' ' || m.last_name FROM members m WHERE m.id = NEW.member_id),
    'plan_name', (SELECT p.description FROM plans p WHERE p.id = NEW.plan_id),
    'employer_name', (SELECT g.organization_name FROM groups g WHERE g.id = NEW.group_id),
    'account_id', NEW.account_id,
    'account_name', (SELECT a.name FROM accounts a WHERE a.id = NEW.account_id))::text, 2);
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION errors_render_names_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A no-op update: errors_render renders each row again; no count, age or party changes.
  CASE TG_TABLE_NAME
    WHEN 'members' THEN UPDATE errors SET rendered = rendered WHERE member_id = NEW.id;
    WHEN 'plans' THEN UPDATE errors SET rendered = rendered WHERE plan_id = NEW.id;
    WHEN 'groups' THEN UPDATE errors SET rendered = rendered WHERE group_id = NEW.id;
    WHEN 'accounts' THEN UPDATE errors SET rendered = rendered WHERE account_id = NEW.id;
    WHEN 'users' THEN UPDATE errors SET rendered = rendered WHERE assigned_user_id = NEW.id;
  END CASE;
  RETURN NULL;
END $$;

CREATE TRIGGER members_errors_names AFTER UPDATE OF first_name, last_name ON members FOR EACH ROW
  WHEN (OLD.first_name IS DISTINCT FROM NEW.first_name OR OLD.last_name IS DISTINCT FROM NEW.last_name)
  EXECUTE FUNCTION errors_render_names_again();
CREATE TRIGGER plans_errors_names AFTER UPDATE OF description ON plans FOR EACH ROW
  WHEN (OLD.description IS DISTINCT FROM NEW.description) EXECUTE FUNCTION errors_render_names_again();
CREATE TRIGGER groups_errors_names AFTER UPDATE OF organization_name ON groups FOR EACH ROW
  WHEN (OLD.organization_name IS DISTINCT FROM NEW.organization_name) EXECUTE FUNCTION errors_render_names_again();
CREATE TRIGGER accounts_errors_names AFTER UPDATE OF name ON accounts FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION errors_render_names_again();
CREATE TRIGGER users_errors_names AFTER UPDATE OF email ON users FOR EACH ROW
  WHEN (OLD.email IS DISTINCT FROM NEW.email) EXECUTE FUNCTION errors_render_names_again();

-- Every error rendered again with its names.
UPDATE errors SET rendered = rendered;
