-- Issue 14: acknowledgements arrive on their own now (the inbound pickup job, the sandbox carrier),
-- not only posted by an operator against a delivery he names. Each is kept whatever it turns out
-- to be: matched to its delivery, unmatched (no sent 834 of that carrier has its control
-- numbers), or malformed (not a readable TA1 or 999), so none is ever dropped.

ALTER TABLE acknowledgements
  ALTER COLUMN account_id DROP NOT NULL,
  ALTER COLUMN file_delivery_id DROP NOT NULL,
  ALTER COLUMN kind DROP NOT NULL,
  ALTER COLUMN model DROP NOT NULL,
  ALTER COLUMN status DROP NOT NULL,
  -- The carrier it came from: control numbers are unique per carrier only.
  ADD COLUMN carrier_name text,
  -- The inbound file's name, when it came as a file.
  ADD COLUMN file_name text,
  ADD COLUMN outcome text NOT NULL DEFAULT 'matched' CHECK (outcome IN ('matched', 'unmatched', 'malformed')),
  -- Why it is unmatched or malformed: control numbers, segment names and positions, never member data.
  ADD COLUMN problem text,
  -- SHA-256 of raw: the same text from the same carrier is stored once (docs/decisions.md).
  ADD COLUMN raw_sha256 text;

UPDATE acknowledgements a SET carrier_name = d.carrier_name FROM file_deliveries d WHERE d.id = a.file_delivery_id;
ALTER TABLE acknowledgements ALTER COLUMN carrier_name SET NOT NULL;

-- Rows posted twice before this migration keep their copies; only the first of each carries the hash.
UPDATE acknowledgements a SET raw_sha256 = encode(sha256(convert_to(a.raw, 'UTF8')), 'hex')
 WHERE NOT EXISTS (
   SELECT 1 FROM acknowledgements b
    WHERE b.carrier_name = a.carrier_name AND b.raw = a.raw AND (b.received_at, b.id) < (a.received_at, a.id)
 );
CREATE UNIQUE INDEX acknowledgements_raw_idx ON acknowledgements (carrier_name, raw_sha256);

ALTER TABLE acknowledgements DROP CONSTRAINT acknowledgements_source_check;
ALTER TABLE acknowledgements ADD CONSTRAINT acknowledgements_source_check CHECK (source IN ('operator', 'inbound', 'sandbox'));

-- A matched acknowledgement is read and linked; an unmatched one is read but linked to nothing; a
-- malformed one could not be read at all.
ALTER TABLE acknowledgements ADD CONSTRAINT acknowledgements_outcome_shape_check CHECK (
  CASE outcome
    WHEN 'matched' THEN file_delivery_id IS NOT NULL AND account_id IS NOT NULL AND kind IS NOT NULL AND model IS NOT NULL AND status IS NOT NULL
    WHEN 'unmatched' THEN file_delivery_id IS NULL AND kind IS NOT NULL AND model IS NOT NULL AND status IS NOT NULL AND problem IS NOT NULL
    ELSE file_delivery_id IS NULL AND kind IS NULL AND model IS NULL AND status IS NULL AND problem IS NOT NULL
  END
);

-- GET /acknowledgements: newest first, filtered by outcome or carrier.
CREATE INDEX acknowledgements_received_idx ON acknowledgements (received_at, id);
CREATE INDEX acknowledgements_outcome_idx ON acknowledgements (outcome, received_at, id);

-- Matching: a sent 834 of the carrier by its interchange control number.
CREATE INDEX file_deliveries_carrier_control_number_idx ON file_deliveries (carrier_name, interchange_control_number)
  WHERE interchange_control_number IS NOT NULL;
-- The overdue check: sent 834 files still awaiting their 999.
CREATE INDEX file_deliveries_awaited_idx ON file_deliveries (sent_at) WHERE acknowledgement_status = 'awaited';
