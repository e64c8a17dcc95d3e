-- A plan renamed renders again only its coverage period's errors, found through
-- errors_coverage_period_idx. The errors table has no index on plan_id, so 0023's
-- `WHERE plan_id = NEW.id` read every error of every account for each rename. A plan belongs to one
-- coverage period and an error names only a plan of its own coverage period (raising checks it),
-- so the narrower condition finds the same errors.
CREATE OR REPLACE FUNCTION errors_render_names_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A no-op update: errors_render renders each row again; no count, age or party changes.
  CASE TG_TABLE_NAME
    WHEN 'members' THEN UPDATE errors SET rendered = rendered WHERE member_id = NEW.id;
    WHEN 'plans' THEN UPDATE errors SET rendered = rendered WHERE coverage_period_id = NEW.coverage_period_id AND plan_id = NEW.id;
    WHEN 'groups' THEN UPDATE errors SET rendered = rendered WHERE group_id = NEW.id;
    WHEN 'accounts' THEN UPDATE errors SET rendered = rendered WHERE account_id = NEW.id;
    WHEN 'users' THEN UPDATE errors SET rendered = rendered WHERE assigned_user_id = NEW.id;
  END CASE;
  RETURN NULL;
END $$;
