-- Console sign-in: users with a password sign in to the operations console, which then calls the
-- API with a session cookie instead of an API key.

-- scrypt$N$r$p$salt$hash (src/lib/passwords.ts); null: the user cannot sign in.
ALTER TABLE users
  ADD COLUMN password_hash   text,
  ADD COLUMN password_set_at timestamptz;

-- Sign-in is by email alone, so an email may sign in to one account only: unique among the active
-- users that hold a password (a deactivated user can never sign in again, so it frees its email).
-- Emails are stored lower-cased, so this is case-insensitive. It is also the sign-in lookup.
CREATE UNIQUE INDEX users_console_email_key ON users (email)
  WHERE password_hash IS NOT NULL AND deactivated_at IS NULL;

-- One row per signed-in browser. The cookie holds 256 random bits; only their SHA-256 is kept, so
-- a copy of this table signs nobody in. Lifetime is absolute (expires_at); expired rows are
-- deleted when they are next presented or when their user signs in again.
CREATE TABLE console_sessions (
  id          uuid PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  user_id     uuid NOT NULL REFERENCES users (id),
  account_id  uuid NOT NULL REFERENCES accounts (id),
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);

-- Changes made in the console name the signed-in user in the audit trail.
ALTER TABLE audit_events
  ADD COLUMN actor_user_id uuid REFERENCES users (id),
  DROP CONSTRAINT audit_events_channel_check,
  ADD CONSTRAINT audit_events_channel_check CHECK (channel IN ('api', 'cli', 'system', 'console'));
