-- Members the rule-table check held back from a delivery before it was sent (issue 14): their data
-- would have broken the 834 (X220A1), so the file went without them and each raised a
-- file_validation error for the partner. One row per member left out: a member whose own loop
-- failed lists its findings; a dependent left out only because its subscriber failed lists none
-- (a dependent never goes without its subscriber). Findings are codes and positions only
-- (segment, qualifier, element, loop, IK3/IK4 codes, the plan): never a value, which may be a
-- birth date or an SSN.
CREATE TABLE held_back_members (
  file_delivery_id uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  member_id        uuid NOT NULL REFERENCES members (id),
  subscriber_id    uuid NOT NULL,
  -- JSON text: an array of HeldBackFinding (carrier-delivery/pre-send-check.ts).
  problems         text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (file_delivery_id, member_id)
);
CREATE INDEX held_back_members_member_idx ON held_back_members (member_id);
