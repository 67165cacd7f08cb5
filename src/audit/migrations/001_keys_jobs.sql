-- API keys of the audit API. Only the SHA-256 of a key is kept; `prefix` lets an operator recognise it in a list.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  name text NOT NULL DEFAULT '',
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- One row per audit job. `owner` is the credential that created it (`key:<id>` or `token:<sub>`): a caller
-- sees only its own jobs. A worker claims a job by setting `worker` and `lease_until`; a running job whose
-- lease has passed is claimable again (its worker died). `attempts` counts claims.
CREATE TABLE jobs (
  id text PRIMARY KEY,
  owner text NOT NULL,
  url text NOT NULL,
  config jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  worker text,
  lease_until timestamptz,
  error text,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  seq bigserial NOT NULL
);
-- Listing newest first, per owner, paged by (created_at, seq).
CREATE INDEX jobs_owner_created ON jobs (owner, created_at DESC, seq DESC);
-- The queue: claimable jobs in arrival order.
CREATE INDEX jobs_queue ON jobs (created_at, seq) WHERE status IN ('pending', 'running');
