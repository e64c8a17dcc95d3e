-- Set-password links: an account administrator (or an operator) creates a one-time link for a
-- console user and hands it over; whoever opens it chooses the user's password. This replaces the
-- command line for a running service, which holds the embedded database.

-- The link carries 256 random bits; only their SHA-256 is kept, so a copy of this table sets no
-- password. A link works once (used_at), until expires_at, and only while it is the user's newest
-- (a newer link sets revoked_at on the older ones that are still unused).
CREATE TABLE password_links (
  id          uuid PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  user_id     uuid NOT NULL REFERENCES users (id),
  account_id  uuid NOT NULL REFERENCES accounts (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  revoked_at  timestamptz
);
-- Revoking a user's older links reads the unused ones of that user.
CREATE INDEX password_links_user_idx ON password_links (user_id) WHERE used_at IS NULL AND revoked_at IS NULL;
