-- Identity's events go out to webhooks. The change log (admin_changes) is the one record of what happened: sign-ins
-- (failed ones included, with no actor known) are written there too, and each entry whose action has an event type
-- queues one delivery per webhook that listens for it, in the same statement (src/identity/events/record.ts).
ALTER TABLE admin_changes DROP CONSTRAINT admin_changes_actor_kind_check;
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_actor_kind_check
  CHECK (actor_kind IN ('person', 'admin-token', 'platform', 'anonymous'));
ALTER TABLE admin_changes ADD COLUMN event_type text;
ALTER TABLE admin_changes ADD COLUMN client_ip text;
CREATE INDEX admin_changes_event_idx ON admin_changes (event_type, at) WHERE event_type IS NOT NULL;

CREATE TABLE webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- Empty: every event type.
  event_types text[] NOT NULL DEFAULT '{}',
  -- The signing secret (whsec_...), sealed with the service's secret key: shown once at creation or rotation.
  secret_sealed text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  -- The change-log entry the event is; null for a test send.
  change_id bigint REFERENCES admin_changes (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; a claimed delivery is pushed past its lease so one instance sends it at a time.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
