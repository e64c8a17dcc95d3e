-- A census's subscribers are stored as the JSON text the service wrote (masked SSNs, see
-- census-ssn.ts) and only ever read back whole (GET /census_requests/{id}/subscribers): nothing
-- queries inside them. json keeps that text as it is, where jsonb converted every document to its
-- binary form on the way in and back to text on the way out: storing a 50,000-subscriber census
-- cost the database about twice as much as jsonb (issue 16). The answer's keys now keep the order
-- they were written in instead of jsonb's shortest-first order; the values are the same.
ALTER TABLE census_subscribers ALTER COLUMN data TYPE json USING data::json;
