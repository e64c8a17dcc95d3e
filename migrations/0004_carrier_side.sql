-- The carrier side (api-contract.md sections 5 and 7): member transactions delivered to the
-- carrier, 834 file deliveries and what each carried, census requests and their members.

-- The carrier's own id for a member, learnt from a census; the first rule of matching. Matching
-- reads a whole coverage period's members at once, so it needs no index, and without one the
-- census's updates of it (like the status updates of each delivery) can stay on the row's page
-- (HOT): a census or an installation touches every member of a group. The free space left in
-- each page is what makes that possible for members written from now on.
ALTER TABLE members ADD COLUMN carrier_member_id text;
ALTER TABLE members SET (fillfactor = 80);

-- A family's latest life event on a coverage period, read page by page for carrier files.
CREATE INDEX qualifying_life_events_subscriber_latest_idx ON qualifying_life_events (subscriber_id, coverage_period_id, created_at DESC, id DESC);

-- A member change that must reach the carrier (member management phase). `subscriber_id` is the
-- family: a subscriber's status is the status of its family's latest transaction.
--
-- An installation writes one per family (50,000 for a large group), so only the references that
-- matter are checked by the database: the members and the delivery. The account, group and
-- coverage period are copied from the member's group by the service in the same statement.
CREATE TABLE member_transactions (
  id                       uuid PRIMARY KEY,
  account_id               uuid NOT NULL,
  coverage_period_id       uuid NOT NULL,
  group_id                 uuid NOT NULL,
  subscriber_id            uuid NOT NULL REFERENCES members (id),
  member_id                uuid NOT NULL REFERENCES members (id),
  -- `installation`: the family's place in the full file sent when the work order was submitted.
  kind                     text NOT NULL CHECK (kind IN ('installation', 'subscriber_created', 'subscriber_updated', 'dependent_created',
                                                         'dependent_updated', 'qualifying_life_event')),
  qualifying_life_event_id uuid,
  status                   text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'submitted', 'synced', 'errors')),
  file_delivery_id         uuid,
  created_at               timestamptz NOT NULL DEFAULT now(),
  submitted_at             timestamptz,
  completed_at             timestamptz,
  updated_at               timestamptz NOT NULL DEFAULT now()
);
-- Not on status: a delivery moves tens of thousands of transactions at once, and an update that
-- changes no indexed column stays on its page (HOT).
CREATE INDEX member_transactions_coverage_period_idx ON member_transactions (coverage_period_id, created_at, id);
CREATE INDEX member_transactions_subscriber_idx ON member_transactions (subscriber_id, created_at, id);
CREATE INDEX member_transactions_file_delivery_idx ON member_transactions (file_delivery_id) WHERE file_delivery_id IS NOT NULL;
ALTER TABLE member_transactions SET (fillfactor = 80);

-- Per carrier, the last interchange control number used (ISA13): unique and increasing per
-- sender and receiver pair, which is what carriers check for duplicates.
CREATE TABLE carrier_control_numbers (
  carrier_name text PRIMARY KEY,
  last_value   integer NOT NULL CHECK (last_value BETWEEN 0 AND 999999999)
);

-- One file (or API submission) sent to the carrier. The content is kept in chunks, written as it
-- is generated, so a 60 MB file never sits whole in memory and every instance can serve it.
-- Chunks are sealed like SSNs (AES-256-GCM, `key_id` names the key): the files carry SSNs in clear.
CREATE TABLE file_deliveries (
  id                         uuid PRIMARY KEY,
  account_id                 uuid NOT NULL REFERENCES accounts (id),
  coverage_period_id         uuid NOT NULL REFERENCES coverage_periods (id),
  group_id                   uuid NOT NULL REFERENCES groups (id),
  carrier_name               text NOT NULL,
  kind                       text NOT NULL CHECK (kind IN ('full', 'change')),
  channel                    text NOT NULL CHECK (channel IN ('edi', 'api')),
  file_name                  text NOT NULL,
  status                     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  transaction_count          integer NOT NULL DEFAULT 0,
  member_count               integer NOT NULL DEFAULT 0,
  byte_size                  bigint,
  sha256                     text,
  interchange_control_number integer,
  -- The moment the content was read (the build's transaction): what a full file's coverage
  -- transmissions are recorded from once it is sent.
  content_as_of              timestamptz,
  destination                text,
  attempts                   integer NOT NULL DEFAULT 0,
  last_error                 text,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  sent_at                    timestamptz,
  updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX file_deliveries_coverage_period_idx ON file_deliveries (coverage_period_id, created_at, id);

CREATE TABLE file_delivery_chunks (
  file_delivery_id uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  seq              integer NOT NULL,
  key_id           text NOT NULL,
  data             bytea NOT NULL,
  PRIMARY KEY (file_delivery_id, seq)
);

ALTER TABLE member_transactions
  ADD CONSTRAINT member_transactions_file_delivery_fk FOREIGN KEY (file_delivery_id) REFERENCES file_deliveries (id);

-- What was sent about one member's coverage in one plan: the answer to "did the carrier get it".
-- Written only by the file builder, copied from the rows it read in the same transaction, and a
-- full file writes one per coverage (200,000 for a large group): the database checks only the
-- delivery it belongs to, not four more references per row.
CREATE TABLE coverage_transmissions (
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL,
  coverage_period_id uuid NOT NULL,
  member_id          uuid NOT NULL,
  plan_id            uuid NOT NULL,
  file_delivery_id   uuid NOT NULL REFERENCES file_deliveries (id),
  transaction_id     uuid,
  maintenance        text NOT NULL CHECK (maintenance IN ('addition', 'change', 'termination', 'reinstatement', 'audit')),
  start_date         date,
  end_date           date,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX coverage_transmissions_member_idx ON coverage_transmissions (member_id, created_at, id);
CREATE INDEX coverage_transmissions_coverage_period_idx ON coverage_transmissions (coverage_period_id, created_at, id);

-- A census the carrier sent (posted by an operator or a sandbox carrier) and what reconciling it
-- did. `errors` are problems with the census itself (a row that could not be read).
CREATE TABLE census_requests (
  id                   uuid PRIMARY KEY,
  account_id           uuid NOT NULL REFERENCES accounts (id),
  coverage_period_id   uuid NOT NULL REFERENCES coverage_periods (id),
  group_id             uuid NOT NULL REFERENCES groups (id),
  format               text NOT NULL CHECK (format IN ('json', 'x12_834')),
  submitted_by         text NOT NULL,
  as_of                date NOT NULL,
  status               text NOT NULL CHECK (status IN ('completed', 'failed')),
  content_sha256       text NOT NULL,
  errors               jsonb NOT NULL DEFAULT '[]',
  subscriber_count     integer NOT NULL DEFAULT 0,
  member_count         integer NOT NULL DEFAULT 0,
  matched_count        integer NOT NULL DEFAULT 0,
  discrepancy_count    integer NOT NULL DEFAULT 0,
  errors_created       integer NOT NULL DEFAULT 0,
  errors_reopened      integer NOT NULL DEFAULT 0,
  errors_resolved      integer NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  completed_at         timestamptz
);
CREATE INDEX census_requests_coverage_period_idx ON census_requests (coverage_period_id, as_of, created_at, id);

-- The census's subscribers as the carrier sent them (families, in order), with the platform
-- subscriber each was matched to.
CREATE TABLE census_subscribers (
  census_request_id      uuid NOT NULL REFERENCES census_requests (id) ON DELETE CASCADE,
  position               integer NOT NULL,
  matched_subscriber_id  uuid REFERENCES members (id),
  data                   jsonb NOT NULL,
  PRIMARY KEY (census_request_id, position)
);

ALTER TABLE errors ADD CONSTRAINT errors_census_request_fk FOREIGN KEY (census_request_id) REFERENCES census_requests (id);

-- Sandbox carriers keep "their" differences from the platform's data here, so a census they
-- answer with repeats them until the platform's next change to that member reaches them.
CREATE TABLE sandbox_carrier_differences (
  coverage_period_id uuid NOT NULL REFERENCES coverage_periods (id),
  member_id          uuid NOT NULL REFERENCES members (id),
  parameter          text NOT NULL,
  PRIMARY KEY (coverage_period_id, member_id, parameter)
);

-- The error resource now shows the census request that last touched it (2.2 census_requests).
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
      FROM census_requests c WHERE c.id = NEW.census_request_id))::text, 2);
  RETURN NEW;
END $$;
