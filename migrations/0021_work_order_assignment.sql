-- The operators' work-order queue (issue: "no age, no account or employer, no counts by status";
-- "a work order can be assigned to an active user of the party that holds it"; "a 'my queue'
-- filter"). A work order is held by the service (operator) party, so its assignee is a user of
-- a service account; the service checks that, a foreign key cannot (users of every account share
-- the table).
ALTER TABLE work_orders ADD COLUMN assigned_user_id uuid REFERENCES users (id);

-- "My queue" (assigned_user_id = me) in the queue's default order; unassigned orders, the
-- common case, stay out of the index.
CREATE INDEX work_orders_assigned_user_idx ON work_orders (assigned_user_id, created_at, id)
  WHERE assigned_user_id IS NOT NULL;

-- When the work order entered its current status: age_seconds and sort=age are measured from it.
-- updated_at cannot serve once an assignment also changes the work order. Until this migration
-- only status changes (opening, transitions) wrote updated_at, so it is the right backfill.
ALTER TABLE work_orders ADD COLUMN status_changed_at timestamptz;
UPDATE work_orders SET status_changed_at = updated_at;
ALTER TABLE work_orders ALTER COLUMN status_changed_at SET NOT NULL;
ALTER TABLE work_orders ALTER COLUMN status_changed_at SET DEFAULT now();
