-- GET /subscribers/{id} (issue 16, point 4): the answer, `{"subscriber": {...}}`, is kept as text
-- in subscriber_documents and read by primary key, instead of being built on every read (about
-- 95 µs of PostgreSQL CPU a read, against 40 µs for a one-row read by key).
--
-- The rule that keeps it current: the document is a function of the subscriber's members row,
-- its dependents' rows, its qualifying life events and whether their coverage periods are
-- expired, and of nothing else. A statement-level trigger on each of those tables rewrites, in
-- the writing statement itself, the documents of every family the statement touched. So no
-- write path (API, census, carrier acknowledgements, expiry job, a future one, plain SQL) can
-- leave a document stale, and a transaction reads its own writes' documents.
--
-- Two writers of one family at once (two dependents added concurrently) could each build the
-- document without the other's row; refresh_subscriber_documents therefore locks the families'
-- document rows first, and builds them in a later statement, whose snapshot (READ COMMITTED)
-- sees what the other writer committed while this one waited.
--
-- subscriber_document_texts is the only definition of the document's text: changing the answer
-- means a new migration that replaces it and rewrites every row (as the backfill below does).

CREATE TABLE subscriber_documents (
  subscriber_id uuid PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
  account_id    uuid NOT NULL,
  body          text NOT NULL
);

-- The documents of these subscribers as the tables hold them now (dependents' ids are ignored).
-- Field for field what presentSubscriber / presentDependent answer (test/subscriber-document.test.ts):
-- optional fields left out when null, the SSN masked to its last four digits, timestamps in UTC
-- with milliseconds. Each value goes through to_json, so quoting and escaping are PostgreSQL's.
CREATE FUNCTION subscriber_document_texts(ids uuid[])
RETURNS TABLE (subscriber_id uuid, account_id uuid, body text)
LANGUAGE sql STABLE AS $$
  SELECT s.id, s.account_id, concat('{"subscriber":{',
    '"id":', to_json(s.id), ',"group_id":', to_json(s.group_id), ',"external_identifier":', to_json(s.external_identifier),
    ',"location_id":' || to_json(s.location_id),
    ',"first_name":', to_json(s.first_name), ',"middle_name":' || to_json(s.middle_name), ',"last_name":', to_json(s.last_name),
    ',"birth_date":', to_json(s.birth_date), ',"gender":', to_json(s.gender),
    ',"social_security_number":', to_json('***-**-' || coalesce(s.ssn_last_four, '0000')),
    ',"marital_status":' || to_json(s.marital_status), ',"tobacco_use":' || to_json(s.tobacco_use),
    ',"residential_address":' || to_json(s.residential_address), ',"mailing_address":' || to_json(s.mailing_address),
    ',"emails":', to_json(coalesce(s.emails, '[]'::jsonb)), ',"phone_numbers":', to_json(coalesce(s.phone_numbers, '[]'::jsonb)),
    ',"class":' || CASE WHEN s.employment_classification_id IS NOT NULL THEN concat('{',
      '"employment_classification_id":', to_json(s.employment_classification_id),
      ',"effective_date":' || to_json(s.class_effective_date), '}') END,
    ',"employment_details":' || to_json(s.employment_details), ',"status":', to_json(s.status),
    ',"current_qualifying_life_events":[',
      (SELECT string_agg(concat('{',
          '"id":', to_json(q.id), ',"coverage_period_id":', to_json(q.coverage_period_id), ',"event":', to_json(q.event),
          ',"date":', to_json(q.date), ',"eligibility_start_date":', to_json(q.eligibility_start_date),
          '}'), ',' ORDER BY q.created_at, q.id)
         FROM (SELECT DISTINCT ON (e.coverage_period_id) e.* FROM qualifying_life_events e
                 JOIN coverage_periods cp ON cp.id = e.coverage_period_id AND cp.state <> 'expired'
                WHERE e.subscriber_id = s.id ORDER BY e.coverage_period_id, e.created_at DESC, e.id DESC) q),
    '],"dependents":[',
      (SELECT string_agg(concat('{',
          '"id":', to_json(d.id), ',"subscriber_id":', to_json(d.subscriber_id), ',"group_id":', to_json(d.group_id),
          ',"external_identifier":', to_json(d.external_identifier), ',"first_name":', to_json(d.first_name),
          ',"last_name":', to_json(d.last_name), ',"birth_date":', to_json(d.birth_date), ',"gender":', to_json(d.gender),
          ',"subscriber_relationship":' || to_json(d.subscriber_relationship), ',"status":', to_json(d.status),
          ',"social_security_number":' || to_json('***-**-' || d.ssn_last_four),
          ',"handicapped":' || to_json(d.handicapped), ',"tobacco_use":' || to_json(d.tobacco_use),
          ',"created_at":', to_json(to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          ',"updated_at":', to_json(to_char(d.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          '}'), ',' ORDER BY d.created_at, d.id)
         FROM members d WHERE d.subscriber_id = s.id AND d.kind = 'dependent'),
    ']',
    ',"created_at":', to_json(to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    ',"updated_at":', to_json(to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    '}}')
  FROM members s
  WHERE s.id = ANY (ids) AND s.kind = 'subscriber'
$$;

-- Rewrites the documents of these subscribers (ids of subscribers that no longer exist are dropped).
CREATE FUNCTION refresh_subscriber_documents(ids uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  -- Waits for any other transaction writing these families (in id order: no deadlock between
  -- two refreshes); the statements below take their snapshot after it.
  PERFORM 1 FROM subscriber_documents sd WHERE sd.subscriber_id = ANY (ids) ORDER BY sd.subscriber_id FOR UPDATE;
  INSERT INTO subscriber_documents AS sd (subscriber_id, account_id, body)
  SELECT t.subscriber_id, t.account_id, t.body FROM subscriber_document_texts(ids) t
  ON CONFLICT (subscriber_id) DO UPDATE SET account_id = excluded.account_id, body = excluded.body
    WHERE sd.body IS DISTINCT FROM excluded.body OR sd.account_id IS DISTINCT FROM excluded.account_id;
END
$$;

-- members: the families of the rows a statement inserted, deleted or changed. Columns no
-- document shows (the sealed SSN, its hash and key, the carrier's member id) are left out of
-- the comparison, so a census writing carrier ids rewrites nothing; any column added later is
-- compared, which errs on the side of rewriting.
CREATE FUNCTION members_refresh_documents() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  unseen CONSTANT text[] := ARRAY['ssn_ciphertext', 'ssn_key_id', 'ssn_hash', 'carrier_member_id'];
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT coalesce(n.subscriber_id, n.id) FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT o.subscriber_id FROM old_rows o WHERE o.subscriber_id IS NOT NULL));
  ELSE
    PERFORM refresh_subscriber_documents(ARRAY(
      SELECT DISTINCT f.id FROM new_rows n JOIN old_rows o ON o.id = n.id
        CROSS JOIN LATERAL (VALUES (coalesce(n.subscriber_id, n.id)), (coalesce(o.subscriber_id, o.id))) AS f (id)
       WHERE to_jsonb(n) - unseen IS DISTINCT FROM to_jsonb(o) - unseen));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER members_documents_insert AFTER INSERT ON members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_refresh_documents();
CREATE TRIGGER members_documents_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_refresh_documents();
CREATE TRIGGER members_documents_delete AFTER DELETE ON members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION members_refresh_documents();

-- qualifying_life_events: the subscribers of every row written.
CREATE FUNCTION life_events_refresh_documents() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT n.subscriber_id FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT o.subscriber_id FROM old_rows o));
  ELSE
    PERFORM refresh_subscriber_documents(ARRAY(SELECT n.subscriber_id FROM new_rows n UNION SELECT o.subscriber_id FROM old_rows o));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER life_events_documents_insert AFTER INSERT ON qualifying_life_events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION life_events_refresh_documents();
CREATE TRIGGER life_events_documents_update AFTER UPDATE ON qualifying_life_events
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION life_events_refresh_documents();
CREATE TRIGGER life_events_documents_delete AFTER DELETE ON qualifying_life_events
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION life_events_refresh_documents();

-- coverage_periods: a period becoming expired (or, by hand, no longer expired) changes which life
-- events of its subscribers are current. Other changes of a period show in no document.
CREATE FUNCTION coverage_periods_refresh_documents() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_subscriber_documents(ARRAY(
    SELECT DISTINCT e.subscriber_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN qualifying_life_events e ON e.coverage_period_id = n.id
     WHERE (n.state = 'expired') IS DISTINCT FROM (o.state = 'expired')));
  RETURN NULL;
END
$$;
CREATE TRIGGER coverage_periods_documents_update AFTER UPDATE ON coverage_periods
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION coverage_periods_refresh_documents();

-- The subscribers already stored.
INSERT INTO subscriber_documents (subscriber_id, account_id, body)
SELECT t.subscriber_id, t.account_id, t.body FROM subscriber_document_texts(ARRAY(SELECT id FROM members WHERE kind = 'subscriber')) t;
