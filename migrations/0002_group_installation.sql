-- Group installation (service-interface.md section 1, api-contract.md sections 3 to 5): the
-- employer, its locations and producers, the installment, coverage periods, plans, employment
-- classifications, members (subscribers and dependents), qualifying life events with their
-- elections, primary care provider selections, work orders and the error resources.
-- Every table carries account_id so tenancy is one indexed predicate in every query.

ALTER TABLE groups
  ADD COLUMN fein                            text,
  ADD COLUMN established_date                date,
  ADD COLUMN employer_type                   text,
  ADD COLUMN census_employees                integer CHECK (census_employees >= 0),
  ADD COLUMN census_full_time_equivalent     integer CHECK (census_full_time_equivalent >= 0),
  ADD COLUMN census_eligible_employees       integer CHECK (census_eligible_employees >= 0),
  ADD COLUMN producer_agency                 jsonb;

CREATE TABLE locations (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id),
  group_id            uuid NOT NULL REFERENCES groups (id),
  external_identifier text NOT NULL,
  type                text NOT NULL,
  is_primary          boolean NOT NULL DEFAULT false,
  address_line_1      text NOT NULL,
  address_line_2      text,
  city                text NOT NULL,
  state               text NOT NULL,
  zip                 text NOT NULL,
  fips_county_code    text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX locations_group_external_identifier_key ON locations (group_id, external_identifier);
CREATE UNIQUE INDEX locations_one_primary_per_group ON locations (group_id) WHERE is_primary;

CREATE TABLE producers_of_record (
  id                       uuid PRIMARY KEY,
  account_id               uuid NOT NULL REFERENCES accounts (id),
  group_id                 uuid NOT NULL REFERENCES groups (id),
  position                 integer NOT NULL,
  first_name               text,
  last_name                text NOT NULL,
  national_producer_number text NOT NULL,
  state_license_number     text,
  email                    text NOT NULL,
  phone_number             text,
  signature_date           date NOT NULL,
  -- Percent with two decimals (33.33 + 33.33 + 33.34); the service checks the sum is 100.
  commission_split         numeric(5, 2) NOT NULL CHECK (commission_split > 0 AND commission_split <= 100),
  writing_producer         boolean NOT NULL DEFAULT false,
  agency                   jsonb,
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX producers_of_record_group_idx ON producers_of_record (group_id, position);

CREATE TABLE coverage_periods (
  id                        uuid PRIMARY KEY,
  account_id                uuid NOT NULL REFERENCES accounts (id),
  group_id                  uuid NOT NULL REFERENCES groups (id),
  external_identifier       text NOT NULL,
  carrier_name              text NOT NULL,
  coverage_start_date       date NOT NULL,
  coverage_end_date         date,
  open_enrollment_start_date date,
  open_enrollment_end_date  date,
  carrier_group_number      text,
  additional_information    text,
  sign_off_name             text,
  sign_off_title            text,
  sign_off_date             date,
  state                     text NOT NULL DEFAULT 'initial'
                            CHECK (state IN ('initial', 'configuration', 'test', 'production', 'expired')),
  distribution_format       text NOT NULL CHECK (distribution_format IN ('edi', 'api', 'manual')),
  setup_completed_at        timestamptz,
  installed_at              timestamptz,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX coverage_periods_group_external_identifier_key ON coverage_periods (group_id, external_identifier);
CREATE INDEX coverage_periods_group_idx ON coverage_periods (group_id, created_at, id);

CREATE TABLE group_installments (
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL REFERENCES accounts (id),
  group_id           uuid NOT NULL UNIQUE REFERENCES groups (id),
  carrier_name       text NOT NULL,
  status             text NOT NULL DEFAULT 'in_progress'
                     CHECK (status IN ('in_progress', 'setup_completed', 'installed', 'cancelled')),
  coverage_period_id uuid REFERENCES coverage_periods (id),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX group_installments_account_idx ON group_installments (account_id, created_at, id);

CREATE TABLE plans (
  id                    uuid PRIMARY KEY,
  account_id            uuid NOT NULL REFERENCES accounts (id),
  coverage_period_id    uuid NOT NULL REFERENCES coverage_periods (id),
  external_identifier   text NOT NULL,
  description           text NOT NULL,
  product_line          text NOT NULL,
  product_type          text,
  premium_level         text,
  voluntary             boolean NOT NULL DEFAULT false,
  policy_premium_method text NOT NULL,
  premium_rating_method text,
  riders                jsonb NOT NULL DEFAULT '[]',
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX plans_coverage_period_external_identifier_key ON plans (coverage_period_id, external_identifier);

CREATE TABLE employment_classifications (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id),
  group_id            uuid NOT NULL REFERENCES groups (id),
  external_identifier text NOT NULL,
  description         text NOT NULL,
  type                text NOT NULL CHECK (type IN ('class', 'subgroup', 'department', 'division', 'region')),
  start_date          date NOT NULL,
  end_date            date,
  carrier_identifier  text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX employment_classifications_group_external_identifier_key
  ON employment_classifications (group_id, external_identifier);

-- Subscribers and dependents share one table ("members"): errors, coverages and provider
-- selections point at a member whichever it is. The SSN is never stored in clear: an AEAD
-- ciphertext with the id of the key that sealed it, a keyed hash for matching, the last four.
CREATE TABLE members (
  id                      uuid PRIMARY KEY,
  account_id              uuid NOT NULL REFERENCES accounts (id),
  group_id                uuid NOT NULL REFERENCES groups (id),
  subscriber_id           uuid REFERENCES members (id),
  kind                    text NOT NULL CHECK (kind IN ('subscriber', 'dependent')),
  external_identifier     text NOT NULL,
  first_name              text NOT NULL,
  middle_name             text,
  last_name               text NOT NULL,
  birth_date              date NOT NULL,
  gender                  text NOT NULL,
  ssn_ciphertext          text,
  ssn_key_id              text,
  ssn_hash                text,
  ssn_last_four           text,
  marital_status          text,
  tobacco_use             boolean,
  handicapped             boolean,
  subscriber_relationship text,
  location_id             uuid REFERENCES locations (id),
  employment_classification_id uuid REFERENCES employment_classifications (id),
  class_effective_date    date,
  residential_address     jsonb,
  mailing_address         jsonb,
  emails                  jsonb NOT NULL DEFAULT '[]',
  phone_numbers           jsonb NOT NULL DEFAULT '[]',
  employment_details      jsonb,
  status                  text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'submitted', 'synced', 'errors')),
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'subscriber') = (subscriber_id IS NULL))
);
-- Subscribers are unique per group; dependents per subscriber.
CREATE UNIQUE INDEX members_subscriber_external_identifier_key ON members (group_id, external_identifier) WHERE kind = 'subscriber';
CREATE UNIQUE INDEX members_dependent_external_identifier_key ON members (subscriber_id, external_identifier) WHERE kind = 'dependent';
CREATE INDEX members_group_subscribers_idx ON members (group_id, created_at, id) WHERE kind = 'subscriber';
CREATE INDEX members_subscriber_idx ON members (subscriber_id);
CREATE INDEX members_ssn_hash_idx ON members (group_id, ssn_hash);

CREATE TABLE qualifying_life_events (
  id                     uuid PRIMARY KEY,
  account_id             uuid NOT NULL REFERENCES accounts (id),
  subscriber_id          uuid NOT NULL REFERENCES members (id),
  coverage_period_id     uuid NOT NULL REFERENCES coverage_periods (id),
  external_identifier    text,
  event                  text NOT NULL,
  date                   date NOT NULL,
  eligibility_start_date date NOT NULL,
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX qualifying_life_events_external_identifier_key ON qualifying_life_events (subscriber_id, external_identifier)
  WHERE external_identifier IS NOT NULL;
CREATE INDEX qualifying_life_events_coverage_period_idx ON qualifying_life_events (coverage_period_id, subscriber_id);

CREATE TABLE plan_elections (
  id                       uuid PRIMARY KEY,
  account_id               uuid NOT NULL REFERENCES accounts (id),
  qualifying_life_event_id uuid NOT NULL REFERENCES qualifying_life_events (id),
  election_key             text NOT NULL,
  type                     text NOT NULL CHECK (type IN ('election', 'waiver')),
  plan_id                  uuid REFERENCES plans (id),
  waiver_signature_date    date,
  waiver_reason            text,
  UNIQUE (qualifying_life_event_id, election_key)
);

CREATE TABLE coverages (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts (id),
  plan_election_id uuid NOT NULL REFERENCES plan_elections (id),
  plan_id          uuid NOT NULL REFERENCES plans (id),
  member_id        uuid NOT NULL REFERENCES members (id),
  start_date       date NOT NULL,
  end_date         date,
  status           text NOT NULL CHECK (status IN ('employer_sponsored', 'cobra')),
  volume           bigint
);
CREATE INDEX coverages_member_idx ON coverages (member_id);
CREATE INDEX coverages_plan_idx ON coverages (plan_id);

CREATE TABLE provider_selections (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  member_id         uuid NOT NULL REFERENCES members (id),
  plan_id           uuid NOT NULL REFERENCES plans (id),
  npi               text NOT NULL,
  first_name        text,
  last_name         text,
  organization_name text,
  effective_date    date NOT NULL,
  existing_patient  boolean,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provider_selections_member_idx ON provider_selections (member_id, created_at);

CREATE TABLE work_orders (
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL REFERENCES accounts (id),
  coverage_period_id uuid NOT NULL UNIQUE REFERENCES coverage_periods (id),
  status             text NOT NULL DEFAULT 'open'
                     CHECK (status IN ('open', 'in_progress', 'submitted', 'needs_information', 'completed', 'cancelled')),
  history            jsonb NOT NULL DEFAULT '[]',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX work_orders_status_idx ON work_orders (status, created_at, id);

-- The error resource of service-interface.md 2.2. Issue 4 adds comments, watchers and the rest.
CREATE TABLE errors (
  id                   uuid PRIMARY KEY,
  account_id           uuid NOT NULL REFERENCES accounts (id),
  coverage_period_id   uuid NOT NULL REFERENCES coverage_periods (id),
  group_id             uuid NOT NULL REFERENCES groups (id),
  member_id            uuid REFERENCES members (id),
  plan_id              uuid REFERENCES plans (id),
  assignee             text NOT NULL CHECK (assignee IN ('service', 'partner')),
  severity             text NOT NULL CHECK (severity IN ('failure', 'info', 'warning')),
  status               text NOT NULL DEFAULT 'unresolved' CHECK (status IN ('unresolved', 'resolved', 'returned')),
  source               text NOT NULL
                       CHECK (source IN ('file_validation', 'reconciliation', 'api', 'manual', 'error_report')),
  message              text NOT NULL,
  discrepancy_parameter text NOT NULL,
  discrepancy_carrier  jsonb,
  discrepancy_platform jsonb,
  created_by_user_id   uuid REFERENCES users (id),
  resolution_message   text,
  resolved_at          timestamptz,
  resolved_by          text,
  transaction_ids      jsonb NOT NULL DEFAULT '[]',
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX errors_coverage_period_idx ON errors (coverage_period_id, status, assignee, created_at, id);
CREATE INDEX errors_member_idx ON errors (member_id);
