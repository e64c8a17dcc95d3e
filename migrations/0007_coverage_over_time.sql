-- Coverage over time (api-contract.md section 10).
--
-- `coverage_spans`: the coverage in force, per member and line of coverage (the plan_elections
-- key: medical, dental, voluntary_life, ...), as periods that never overlap within a line. Each
-- qualifying life event rewrites its family's spans: an election replaces, from its start date,
-- what was in force; an end date or a waiver ends it. A span also carries the coverage level of
-- its plan for the family during the span, so a span is split wherever the family on the plan
-- changes. Spans no longer true are kept, voided (`voided_at`), so the history of what was
-- believed stays; reading what is in force on a date is one query on the partial index.
CREATE TABLE coverage_spans (
  id                       uuid PRIMARY KEY,
  account_id               uuid NOT NULL REFERENCES accounts (id),
  subscriber_id            uuid NOT NULL REFERENCES members (id),
  member_id                uuid NOT NULL REFERENCES members (id),
  line                     text NOT NULL,
  plan_id                  uuid NOT NULL REFERENCES plans (id),
  coverage_period_id       uuid NOT NULL REFERENCES coverage_periods (id),
  start_date               date NOT NULL,
  end_date                 date,
  status                   text NOT NULL CHECK (status IN ('employer_sponsored', 'cobra')),
  volume                   bigint,
  coverage_level           text NOT NULL,
  -- The event whose election set this span.
  qualifying_life_event_id uuid NOT NULL REFERENCES qualifying_life_events (id),
  created_at               timestamptz NOT NULL DEFAULT now(),
  voided_at                timestamptz,
  voided_by_event_id       uuid REFERENCES qualifying_life_events (id),
  CHECK (end_date IS NULL OR end_date >= start_date)
);
CREATE INDEX coverage_spans_member_idx ON coverage_spans (member_id, start_date) WHERE voided_at IS NULL;
CREATE INDEX coverage_spans_family_idx ON coverage_spans (subscriber_id) WHERE voided_at IS NULL;
CREATE INDEX coverage_spans_coverage_period_idx ON coverage_spans (coverage_period_id, subscriber_id) WHERE voided_at IS NULL;

-- What each carrier connection (a coverage period) holds about each member, as the service told
-- it: the coverages as the carrier holds them (`records`, see carrier-view.ts) and a digest of the
-- member data the 834 carries. A change file is the difference between this and what is true now.
-- Written when a delivery is sent (from carrier_view_updates): a file that never reached the
-- carrier changes nothing here.
CREATE TABLE carrier_views (
  coverage_period_id uuid NOT NULL REFERENCES coverage_periods (id),
  member_id          uuid NOT NULL REFERENCES members (id),
  subscriber_id      uuid NOT NULL,
  -- JSON text, never queried inside: text costs a full file nothing to parse on the way in.
  records            text NOT NULL,
  member_digest      text NOT NULL,
  file_delivery_id   uuid NOT NULL REFERENCES file_deliveries (id),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (coverage_period_id, member_id)
);
CREATE INDEX carrier_views_family_idx ON carrier_views (coverage_period_id, subscriber_id);

-- What a built delivery will have told the carrier once it is sent: its views, written with its
-- content and moved into carrier_views when the delivery settles as sent.
CREATE TABLE carrier_view_updates (
  file_delivery_id uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  member_id        uuid NOT NULL,
  subscriber_id    uuid NOT NULL,
  records          text NOT NULL,
  member_digest    text NOT NULL,
  PRIMARY KEY (file_delivery_id, member_id)
);

-- A change delivery whose families turned out to hold nothing the carrier does not already know
-- is `skipped`: nothing is sent.
ALTER TABLE file_deliveries DROP CONSTRAINT IF EXISTS file_deliveries_status_check;
ALTER TABLE file_deliveries ADD CONSTRAINT file_deliveries_status_check CHECK (status IN ('pending', 'sent', 'failed', 'skipped'));

-- Existing data: each recorded coverage becomes a span ending where the member's next coverage of
-- the same line starts, with the coverage level of its plan on its start date.
INSERT INTO coverage_spans (id, account_id, subscriber_id, member_id, line, plan_id, coverage_period_id, start_date, end_date, status,
                            volume, coverage_level, qualifying_life_event_id, created_at)
SELECT gen_random_uuid(), s.account_id, s.subscriber_id, s.member_id, s.line, s.plan_id, s.coverage_period_id, s.start_date, s.end_date, s.status,
       s.volume, 'employee_only', s.event_id, now()
  FROM (
    SELECT c.account_id, q.subscriber_id, c.member_id, pe.election_key AS line, c.plan_id, p.coverage_period_id, c.start_date, c.status, c.volume,
           q.id AS event_id,
           CASE WHEN lead(c.start_date) OVER w IS NULL THEN c.end_date
                ELSE least(coalesce(c.end_date, lead(c.start_date) OVER w - 1), lead(c.start_date) OVER w - 1) END AS end_date
      FROM coverages c
      JOIN plan_elections pe ON pe.id = c.plan_election_id
      JOIN qualifying_life_events q ON q.id = pe.qualifying_life_event_id
      JOIN plans p ON p.id = c.plan_id
    WINDOW w AS (PARTITION BY c.member_id, pe.election_key ORDER BY c.start_date, q.created_at, q.id)
  ) s
 WHERE s.end_date IS NULL OR s.end_date >= s.start_date;

-- Coverage level of the backfilled spans, from the family members on the same plan on the start date.
UPDATE coverage_spans s SET coverage_level = lv.level
  FROM (
    SELECT s2.id,
           CASE WHEN NOT bool_or(o.member_id = s2.subscriber_id) THEN 'individual'
                WHEN count(*) FILTER (WHERE o.member_id <> s2.subscriber_id) = 0 THEN 'employee_only'
                WHEN count(*) FILTER (WHERE o.member_id <> s2.subscriber_id) = 1 THEN
                  CASE WHEN bool_or(m.subscriber_relationship IN ('spouse', 'registered_domestic_partner')) THEN 'employee_and_spouse'
                       ELSE 'employee_and_one_dependent' END
                WHEN bool_or(m.subscriber_relationship IN ('spouse', 'registered_domestic_partner')) THEN 'family'
                ELSE 'employee_and_children' END AS level
      FROM coverage_spans s2
      JOIN coverage_spans o ON o.subscriber_id = s2.subscriber_id AND o.plan_id = s2.plan_id
                           AND o.start_date <= s2.start_date AND (o.end_date IS NULL OR o.end_date >= s2.start_date)
      JOIN members m ON m.id = o.member_id
     GROUP BY s2.id
  ) lv
 WHERE lv.id = s.id;

-- Groups already sent to their carrier: the carrier holds what the service knew (its full file and
-- the change files since), so the view starts as today's coverage within each plan year. The
-- member digest is unknown: the next change of such a member also restates its data (INS04 25).
INSERT INTO carrier_views (coverage_period_id, member_id, subscriber_id, records, member_digest, file_delivery_id, updated_at)
SELECT s.coverage_period_id, s.member_id, s.subscriber_id,
       jsonb_agg(jsonb_build_object(
         'line', s.line, 'planId', s.plan_id, 'status', s.status,
         'startDate', to_char(greatest(s.start_date, cp.coverage_start_date), 'YYYY-MM-DD'),
         'endDate', CASE WHEN s.end_date IS NULL OR (cp.coverage_end_date IS NOT NULL AND s.end_date >= cp.coverage_end_date) THEN NULL
                         ELSE to_char(s.end_date, 'YYYY-MM-DD') END,
         'terms', jsonb_build_array(jsonb_build_object('from', to_char(greatest(s.start_date, cp.coverage_start_date), 'YYYY-MM-DD'),
                                                       'coverageLevel', s.coverage_level, 'volume', s.volume)))
         ORDER BY s.line, s.start_date)::text,
       '', full_file.id, now()
  FROM coverage_spans s
  JOIN coverage_periods cp ON cp.id = s.coverage_period_id
  JOIN LATERAL (SELECT d.id FROM file_deliveries d WHERE d.coverage_period_id = cp.id AND d.kind = 'full' AND d.status = 'sent'
                 ORDER BY d.created_at DESC LIMIT 1) full_file ON true
 WHERE s.voided_at IS NULL
   AND (s.end_date IS NULL OR s.end_date >= cp.coverage_start_date)
   AND (cp.coverage_end_date IS NULL OR s.start_date <= cp.coverage_end_date)
 GROUP BY s.coverage_period_id, s.member_id, s.subscriber_id, full_file.id;
