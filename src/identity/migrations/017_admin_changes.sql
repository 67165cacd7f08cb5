-- The record of administrative changes: who changed what, when, with the value before and after. Console rights
-- (src/identity/console/rights-store.ts) are the first change recorded here; every other change of the management API
-- can be added without a new table.
CREATE TABLE admin_changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- A person's token (actor_id: the principal), IDENTITY_ADMIN_TOKEN, or the platform itself (the first run's owner).
  actor_kind text NOT NULL CHECK (actor_kind IN ('person', 'admin-token', 'platform')),
  actor_id uuid,
  action text NOT NULL CHECK (action <> ''),
  target_type text NOT NULL CHECK (target_type <> ''),
  target_id text NOT NULL CHECK (target_id <> ''),
  before jsonb,
  after jsonb
);
CREATE INDEX admin_changes_target_idx ON admin_changes (target_type, target_id, at);
CREATE INDEX admin_changes_at_idx ON admin_changes (at);
