-- Issue 14: a sandbox carrier keeps its own roster, built only from the deliveries it received
-- (it stands in for another company, so its census says what it was told, not what the service
-- knows). These tables are the sandbox's own: nothing of the service reads them.

-- One row per coverage period the sandbox holds a roster for: the lock its jobs take (two jobs of
-- one period apply its deliveries one after the other), and whether its deliberate differences
-- were chosen (once, after the first full file it applied).
CREATE TABLE sandbox_rosters (
  coverage_period_id    uuid PRIMARY KEY REFERENCES coverage_periods (id),
  differences_chosen_at timestamptz,
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- What the sandbox holds for each member (REF*17 as sent: the carrier's key, so text and no
-- foreign key to members): the roster applier's RosterMember (edi-834.roster.ts) without its SSN,
-- which is kept sealed beside it as the service keeps its own.
CREATE TABLE sandbox_roster_members (
  coverage_period_id uuid NOT NULL REFERENCES sandbox_rosters (coverage_period_id) ON DELETE CASCADE,
  member_id          text NOT NULL,
  record             jsonb NOT NULL,
  ssn_ciphertext     text,
  ssn_key_id         text,
  PRIMARY KEY (coverage_period_id, member_id),
  CHECK ((ssn_ciphertext IS NULL) = (ssn_key_id IS NULL))
);

-- Each delivery the sandbox took, once: a job run twice finds it here and applies nothing twice.
-- outcome: applied; rejected (its TA1 or 999 rejected it, so it was not loaded); unreadable (the
-- content could not be read); not_applicable (read, but it cannot apply to what the sandbox holds:
-- a double addition, a change to a coverage never sent); ignored (an audit file changes nothing).
-- ta1 and ack_999 are the acknowledgements it answered (built without copied values, so no member
-- data); answered_at is set once they were handed to the service.
CREATE TABLE sandbox_applied_deliveries (
  file_delivery_id   uuid PRIMARY KEY REFERENCES file_deliveries (id) ON DELETE CASCADE,
  coverage_period_id uuid NOT NULL REFERENCES sandbox_rosters (coverage_period_id) ON DELETE CASCADE,
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  outcome            text NOT NULL CHECK (outcome IN ('applied', 'rejected', 'unreadable', 'not_applicable', 'ignored')),
  -- Why it was not applied: codes, segments, member ids and plan codes, never member data.
  detail             text,
  ta1                text,
  ack_999            text,
  answered_at        timestamptz,
  applied_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_applied_deliveries_unanswered_idx ON sandbox_applied_deliveries (coverage_period_id, seq) WHERE answered_at IS NULL;

-- The sandbox's own interchange control numbers (ISA13 of the TA1s and 999s it sends), per carrier.
CREATE TABLE sandbox_control_numbers (
  carrier_name text PRIMARY KEY,
  last_value   bigint NOT NULL
);

-- Its deliberate differences name members as the sandbox holds them (REF*17), not rows of members.
ALTER TABLE sandbox_carrier_differences DROP CONSTRAINT sandbox_carrier_differences_member_id_fkey;
ALTER TABLE sandbox_carrier_differences ALTER COLUMN member_id TYPE text;
