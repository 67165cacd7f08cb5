-- Forwarding: destinations per project, the outbox of events still to deliver, and dead letters.

CREATE TABLE destinations (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL,
  -- The kinds are listed once in TypeScript (DESTINATION_KINDS, forwarding/vendors/index.ts); test/ingest/schema.test.ts
  -- checks this list against it. Adding a kind: a migration replacing this check, and the adapter.
  kind text NOT NULL CHECK (kind IN ('webhook', 'posthog', 'segment', 'mixpanel', 'amplitude')),
  base_url text NOT NULL,
  -- Non-secret settings of the kind (for example a Mixpanel project id).
  settings jsonb NOT NULL DEFAULT '{}',
  -- The credentials as JSON, sealed with PLATFORM_SECRET_KEY (AES-256-GCM) bound to the destination id.
  credentials_sealed text NOT NULL,
  credential_fields text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  -- Set when the destination asked every sender to wait (Retry-After) or is failing as a whole.
  not_before timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

CREATE INDEX destinations_project ON destinations (project_id);

-- One row per (destination, stored event) still to deliver. The event body is read from events at send time.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  destination_id text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
  event_row_id bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz,
  lease_token text,
  first_failed_at timestamptz,
  last_error text,
  -- After a failure that named no single event, each event of the batch is sent alone to find the bad one.
  solo boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX outbox_destination_order ON outbox (destination_id, id);

CREATE TABLE dead_letters (
  id bigserial PRIMARY KEY,
  destination_id text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
  event_row_id bigint NOT NULL,
  event_id text NOT NULL,
  reason text NOT NULL,
  attempts integer NOT NULL,
  first_failed_at timestamptz NOT NULL,
  queued_at timestamptz NOT NULL,
  dead_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX dead_letters_destination ON dead_letters (destination_id, id);

-- Writes the outbox in the same transaction as the events: one statement-level trigger per INSERT on events,
-- seeing only the rows that statement inserted (a retried event skipped by ON CONFLICT is not among them).
-- The outbox is read (claimed, completed, failed) by src/ingest/forwarding/delivery/outbox.ts; the events are
-- inserted by the group commit in src/ingest/events/committer.ts, which knows nothing of forwarding.
CREATE FUNCTION enqueue_for_forwarding() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO outbox (destination_id, event_row_id)
  SELECT d.id, n.id
  FROM inserted_events n
  JOIN destinations d ON d.project_id = n.project_id AND d.enabled
  ORDER BY n.id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_enqueue_for_forwarding
AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted_events
FOR EACH STATEMENT EXECUTE FUNCTION enqueue_for_forwarding();
