-- Which life events set a family's coverages, replaced ones included: a change file names a member
-- the carrier was never sent by the event that brought it (edi-834-members.ts), read per page of
-- families. The other indexes of coverage_spans hold only spans in force (WHERE voided_at IS NULL),
-- so without this one each page read the whole table.
CREATE INDEX coverage_spans_family_events_idx ON coverage_spans (subscriber_id, coverage_period_id) INCLUDE (member_id, qualifying_life_event_id, status);
