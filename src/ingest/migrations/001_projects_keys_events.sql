-- Projects own API keys and events; a project id is what every event carries in `project_id`.
CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a key is kept; `prefix` (its first characters) lets an operator recognise a key in a list.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id),
  name text NOT NULL DEFAULT '',
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id);

-- `body` is the event as received; the other columns are what is queried. The unique constraint makes
-- retries idempotent for as long as the row exists (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id),
  event_id text NOT NULL,
  event_type text NOT NULL,
  event_ts timestamptz NOT NULL,
  session_id text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  body jsonb NOT NULL,
  UNIQUE (project_id, event_id)
);
