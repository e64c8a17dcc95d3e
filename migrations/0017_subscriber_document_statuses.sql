-- Statuses leave the stored subscriber document (0016): the text keeps a placeholder, the byte
-- 0x01, where each member's status goes (the subscriber's first, then its dependents' in the
-- document's order), and GET /subscribers/{id} puts the members' current statuses there as it
-- reads the row (src/modules/members/subscriber-document.ts). No JSON text PostgreSQL writes can
-- hold a raw 0x01 (to_json escapes control characters), so the placeholder is unambiguous.
--
-- Why: statuses are what changes in bulk. Sending a full 834 moves every member of 50,000
-- families to submitted, a census moves them to synced; rewriting 50,000 documents in those
-- statements cost PostgreSQL about 150-230 µs each, several seconds per step, for text no one may
-- read before the next change. Now those statements rewrite nothing.
--

CREATE OR REPLACE FUNCTION subscriber_document_texts(ids uuid[])
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
    ',"employment_details":' || to_json(s.employment_details), ',"status":', chr(1),
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
          ',"subscriber_relationship":' || to_json(d.subscriber_relationship), ',"status":', chr(1),
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

-- UPDATEs of members: a row trigger, fired only when the UPDATE sets a column the document shows
-- and only for rows where one of them changed. 0016's statement trigger compared every updated
-- row's old and new values through a join of its transition tables, which PostgreSQL ran as a
-- nested loop: 26 s for one UPDATE of 125,000 statuses. PostgreSQL allows no column list on a
-- trigger with transition tables, hence a row trigger. A column added to members must be added
-- to both lists below or be one the document leaves out: test/subscriber-document-columns.test.ts
-- fails until it is.
-- The statement triggers stay for INSERT and DELETE; their function loses the UPDATE branch.
CREATE OR REPLACE FUNCTION members_refresh_documents() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT coalesce(n.subscriber_id, n.id) FROM new_rows n));
  ELSE
    PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT o.subscriber_id FROM old_rows o WHERE o.subscriber_id IS NOT NULL));
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION members_row_refresh_document() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_subscriber_documents(ARRAY(SELECT DISTINCT f FROM unnest(ARRAY[coalesce(NEW.subscriber_id, NEW.id), coalesce(OLD.subscriber_id, OLD.id)]) AS f));
  RETURN NULL;
END
$$;

DROP TRIGGER members_documents_update ON members;
CREATE TRIGGER members_documents_update AFTER UPDATE OF
  id, account_id, group_id, subscriber_id, kind, external_identifier, first_name, middle_name,
  last_name, birth_date, gender, ssn_last_four, marital_status, tobacco_use, handicapped,
  subscriber_relationship, location_id, employment_classification_id, class_effective_date,
  residential_address, mailing_address, emails, phone_numbers, employment_details, created_at,
  updated_at
  ON members FOR EACH ROW WHEN ((
  OLD.id, OLD.account_id, OLD.group_id, OLD.subscriber_id, OLD.kind, OLD.external_identifier,
  OLD.first_name, OLD.middle_name, OLD.last_name, OLD.birth_date, OLD.gender,
  OLD.ssn_last_four, OLD.marital_status, OLD.tobacco_use, OLD.handicapped,
  OLD.subscriber_relationship, OLD.location_id, OLD.employment_classification_id,
  OLD.class_effective_date, OLD.residential_address, OLD.mailing_address, OLD.emails,
  OLD.phone_numbers, OLD.employment_details, OLD.created_at, OLD.updated_at
  ) IS DISTINCT FROM (
  NEW.id, NEW.account_id, NEW.group_id, NEW.subscriber_id, NEW.kind, NEW.external_identifier,
  NEW.first_name, NEW.middle_name, NEW.last_name, NEW.birth_date, NEW.gender,
  NEW.ssn_last_four, NEW.marital_status, NEW.tobacco_use, NEW.handicapped,
  NEW.subscriber_relationship, NEW.location_id, NEW.employment_classification_id,
  NEW.class_effective_date, NEW.residential_address, NEW.mailing_address, NEW.emails,
  NEW.phone_numbers, NEW.employment_details, NEW.created_at, NEW.updated_at
  )) EXECUTE FUNCTION members_row_refresh_document();

-- Every stored text again, with the placeholders.
UPDATE subscriber_documents sd SET body = t.body
  FROM subscriber_document_texts(ARRAY(SELECT subscriber_id FROM subscriber_documents)) t
 WHERE t.subscriber_id = sd.subscriber_id;
