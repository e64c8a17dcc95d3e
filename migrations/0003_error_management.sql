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
       dedupe_key = 'api:primary_care_provider:' || coalesce(member_id::text, '-') || ':' || coalesce(plan_id::text, '-')
 WHERE source = 'api' AND discrepancy_parameter = 'primary_care_provider';

CREATE UNIQUE INDEX errors_dedupe_key ON errors (coverage_period_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
-- The queue without filters, and with one of assignee or severity/source/parameter alone, stays
-- an index range scan in creation order (the 0002 index covers status + assignee).
CREATE INDEX errors_coverage_period_created_idx ON errors (coverage_period_id, created_at, id);
CREATE INDEX errors_coverage_period_assignee_idx ON errors (coverage_period_id, assignee, created_at, id);

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

-- Subscriptions to events. The secret signs deliveries (Standard Webhooks); during a rotation the
-- previous one keeps signing beside the new one until it expires.
CREATE TABLE watchers (
  id                         uuid PRIMARY KEY,
  account_id                 uuid NOT NULL REFERENCES accounts (id),
  url                        text NOT NULL,
  event_types                text[] NOT NULL,
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
-- so a receiver can drop duplicates.
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
