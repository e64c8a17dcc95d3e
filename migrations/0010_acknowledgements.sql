-- Issue 14: the TA1 and 999 acknowledgements carriers answer to our 834 files, and what they say
-- about each delivery (api-contract.md section 10, "Acknowledgements").

-- Every acknowledgement received for a delivery, as received (raw: it may copy member data back,
-- IK4-04 and CTX, so it is served to operators only) and as read (model: codes and control numbers,
-- never those values; x12-ack.model.ts).
CREATE TABLE acknowledgements (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts (id),
  file_delivery_id uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  -- 'ta1': an interchange holding TA1s only; '999': one holding a 999 (a TA1 may precede it).
  kind             text NOT NULL CHECK (kind IN ('ta1', '999')),
  raw              text NOT NULL,
  model            jsonb NOT NULL,
  -- What this acknowledgement says: TA1-04 for a 'ta1', AK9-01 for a '999' (a rejecting TA1 before it wins).
  status           text NOT NULL CHECK (status IN ('accepted', 'accepted_with_errors', 'partially_accepted', 'rejected')),
  -- How it came: posted by an operator; the inbound pickup job will add its own source.
  source           text NOT NULL CHECK (source IN ('operator')),
  received_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX acknowledgements_file_delivery_idx ON acknowledgements (file_delivery_id, received_at, id);

-- NULL for API submissions and for files not sent yet; 'awaited' once an 834 file is sent.
ALTER TABLE file_deliveries
  ADD COLUMN acknowledgement_status text
    CHECK (acknowledgement_status IN ('awaited', 'accepted', 'accepted_with_errors', 'partially_accepted', 'rejected', 'overdue'));

UPDATE file_deliveries SET acknowledgement_status = 'awaited' WHERE channel = 'edi' AND status = 'sent';
