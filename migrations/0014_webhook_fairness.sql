-- One account cannot hold up another's webhooks (issue 15, point 3).
--
-- Jobs may name whom their work is for (`fairness_key`: a delivery's account) and where it goes
-- (`destination`: a receiver's origin, scheme://host:port). The claim takes due jobs round-robin
-- across both, so one account's backlog never delays another's fresh delivery, and caps the slots
-- held by jobs to destinations not known to answer. Jobs without them (carrier files, checks) are
-- claimed oldest first as before.
ALTER TABLE jobs ADD COLUMN fairness_key text;
ALTER TABLE jobs ADD COLUMN destination text;
-- The claim reads each account's oldest due jobs, and skips from one account to the next, here.
CREATE INDEX jobs_fair_claim_idx ON jobs (fairness_key, run_at, id) WHERE status = 'pending' AND fairness_key IS NOT NULL;

-- How each destination has been answering. An answer (any status) marks it trusted for an hour
-- (`last_success_at`); the claim caps the slots jobs to untrusted destinations may hold. Past a
-- threshold of consecutive connection failures or timeouts the destination is blocked until
-- `blocked_until`: the claim leaves its jobs alone, then lets one through as a probe; a failed probe
-- blocks it again for twice as long (`blocks` counts the blocks in a row), an answer clears it.
CREATE TABLE destination_health (
  destination          text PRIMARY KEY,
  consecutive_failures integer NOT NULL DEFAULT 0,
  blocks               integer NOT NULL DEFAULT 0,
  blocked_until        timestamptz,
  last_success_at      timestamptz,
  last_error           text,
  updated_at           timestamptz NOT NULL DEFAULT now()
);
