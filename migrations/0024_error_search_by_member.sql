-- A search (`q`) finds the members it names by trigram (migration 0019), then their errors
-- through this index: every column a search page filters on, sorts by or counts by is carried
-- here, so the errors it matches are counted, and the page's ids chosen, from the index alone
-- without reading an error row (rows are wide: each carries its rendered JSON). Reading 5,000
-- matching rows for a common last name cost more than the rest of the search (bench:queue,
-- issue 17); from this index it reads 5,000 index entries. The key columns stay those of 0019
-- for the lookups by member, status and severity that already used them.
DROP INDEX errors_member_idx;
CREATE INDEX errors_member_idx ON errors (member_id, coverage_period_id, status, severity)
  INCLUDE (aged_from, id, created_at, severity_rank, status_rank, discrepancy_parameter, assignee, assigned_user_id, source, group_id, account_id);
