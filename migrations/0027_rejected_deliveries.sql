-- A carrier that rejects an 834 (a TA1 rejecting the interchange, a 999 rejecting its group) did
-- not take what the file told it. The carrier's view (carrier_views) had already taken the file
-- when it was sent, so what each member's view was before a change file took it is kept here,
-- and put back when the file is rejected (carrier-delivery/rejected-deliveries.ts). A row with
-- NULL records: the carrier had not been told of the member before the file. Rows go once the
-- carrier accepts the file; a full file writes none (it is the first file of its coverage period:
-- before it the carrier held nothing).
CREATE TABLE carrier_view_priors (
  file_delivery_id       uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  member_id              uuid NOT NULL,
  coverage_period_id     uuid NOT NULL,
  subscriber_id          uuid NOT NULL,
  records                text,
  member_digest          text,
  prior_file_delivery_id uuid,
  PRIMARY KEY (file_delivery_id, member_id)
);

-- When an operator had a rejected delivery's changes sent again (POST /file_deliveries/{id}/resend):
-- once only.
ALTER TABLE file_deliveries ADD COLUMN resent_at timestamptz;

-- When the carrier's view gave back what a rejected delivery told (once: a later file may have
-- built on the views since), and the transaction that did it (pg_current_xact_id()).
ALTER TABLE file_deliveries ADD COLUMN views_rolled_back_at timestamptz;
ALTER TABLE file_deliveries ADD COLUMN views_rolled_back_xid text;
-- The snapshot a delivery's content was built from (pg_current_snapshot() in the build's
-- repeatable-read transaction): its settle finds the rollbacks that build could not see, whose
-- members it told from views the carrier never took.
ALTER TABLE file_deliveries ADD COLUMN content_snapshot text;
