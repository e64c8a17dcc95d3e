-- A built delivery's carrier views are staged as JSON documents of up to a thousand members each,
-- not as a row per member: a full file's 125,000 rows cost PostgreSQL some 4 s of the build,
-- while the file waited; a few hundred documents cost well under one. They are expanded into
-- carrier_views once the delivery is sent (delivery-sent.ts), after the carrier has its file.
-- EXTERNAL: stored uncompressed out of line; compressing them took longer than writing them.
CREATE TABLE carrier_view_batches (
  file_delivery_id uuid NOT NULL REFERENCES file_deliveries (id) ON DELETE CASCADE,
  seq              integer NOT NULL,
  -- JSON array of {"m": member id, "s": subscriber id, "r": CarrierRecord[], "d": member digest}.
  views            text NOT NULL,
  PRIMARY KEY (file_delivery_id, seq)
);
ALTER TABLE carrier_view_batches ALTER COLUMN views SET STORAGE EXTERNAL;

-- Views staged by deliveries built before this migration travel on as one document each.
INSERT INTO carrier_view_batches (file_delivery_id, seq, views)
SELECT file_delivery_id, 0, json_agg(json_build_object('m', member_id, 's', subscriber_id, 'r', records::json, 'd', member_digest))::text
  FROM carrier_view_updates
 GROUP BY file_delivery_id;

DROP TABLE carrier_view_updates;
