-- Plan years: the scheduled expiry looks for coverage periods past their coverage_end_date that
-- are not expired yet, every few minutes; expired periods pile up year after year and are left
-- out of the index.
CREATE INDEX coverage_periods_expiry_idx ON coverage_periods (coverage_end_date) WHERE state <> 'expired';
