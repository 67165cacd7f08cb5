-- Alert rules on a saved query or a dashboard widget, their state history, the channels they notify and the
-- notification outbox. Evaluation is claimed per rule by a lease (lease_owner, lease_until) so several instances on
-- one database evaluate each due rule once; the state change and its notifications are written in one transaction,
-- fenced by the lease, so an instance that dies mid-evaluation leaves nothing behind and its successor starts over.

CREATE TABLE notification_channels (
  id              bigserial PRIMARY KEY,
  tenant_id       bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name            text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('email', 'webhook', 'slack')),
  -- email: the addresses; webhook and slack: nothing here (the URL is sealed below).
  addresses       text[] NOT NULL DEFAULT '{}',
  -- The webhook's or Slack's URL, sealed: a Slack incoming-webhook URL is itself the credential.
  url_sealed      text,
  -- Where the URL points, shown instead of the URL: its origin.
  url_origin      text,
  -- The Standard Webhooks secret (whsec_…), sealed; shown once at creation.
  secret_sealed   text,
  created_by      bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);

CREATE TABLE alert_rules (
  id               bigserial PRIMARY KEY,
  tenant_id        bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  owner_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name             text NOT NULL,
  saved_query_id   bigint REFERENCES saved_queries (id) ON DELETE CASCADE,
  dashboard_id     bigint REFERENCES dashboards (id) ON DELETE CASCADE,
  widget_id        text,
  value_column     text,
  -- Values for the query's parameters (a saved query's :name, a widget's dashboard parameters), bound, never spliced.
  parameters       jsonb NOT NULL DEFAULT '{}',
  condition_op     text NOT NULL CHECK (condition_op IN ('above', 'below', 'outside', 'no_data')),
  threshold        double precision,
  threshold_high   double precision,
  interval_minutes integer NOT NULL CHECK (interval_minutes BETWEEN 1 AND 10080),
  pending_minutes  integer NOT NULL DEFAULT 0 CHECK (pending_minutes BETWEEN 0 AND 10080),
  enabled          boolean NOT NULL DEFAULT true,
  silenced_until   timestamptz,
  state            text NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'pending', 'firing', 'nodata', 'error')),
  state_since      timestamptz NOT NULL DEFAULT now(),
  pending_since    timestamptz,
  last_value       double precision,
  last_error       text,
  last_evaluated_at timestamptz,
  evaluations      bigint NOT NULL DEFAULT 0,
  next_eval_at     timestamptz NOT NULL DEFAULT now(),
  lease_owner      text,
  lease_until      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((saved_query_id IS NULL) <> (dashboard_id IS NULL)),
  CHECK ((dashboard_id IS NULL) = (widget_id IS NULL))
);
CREATE INDEX alert_rules_tenant ON alert_rules (tenant_id, id);
CREATE INDEX alert_rules_due ON alert_rules (next_eval_at) WHERE enabled;

CREATE TABLE alert_rule_channels (
  rule_id     bigint NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
  channel_id  bigint NOT NULL REFERENCES notification_channels (id) ON DELETE CASCADE,
  PRIMARY KEY (rule_id, channel_id)
);
CREATE INDEX alert_rule_channels_channel ON alert_rule_channels (channel_id);

CREATE TABLE alert_state_history (
  id            bigserial PRIMARY KEY,
  rule_id       bigint NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
  from_state    text NOT NULL,
  to_state      text NOT NULL,
  value         double precision,
  reason        text NOT NULL,
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_state_history_rule ON alert_state_history (rule_id, id DESC);

-- One row per notification and channel, written with the state change; delivered by whichever instance claims it.
-- event_id is the Standard Webhooks message id, the same on every retry, so a receiver can drop a repeat.
CREATE TABLE notification_deliveries (
  id              bigserial PRIMARY KEY,
  tenant_id       bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  channel_id      bigint NOT NULL REFERENCES notification_channels (id) ON DELETE CASCADE,
  rule_id         bigint REFERENCES alert_rules (id) ON DELETE SET NULL,
  event_id        text NOT NULL,
  payload         jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_by      text,
  claimed_until   timestamptz,
  last_error      text,
  sent_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, channel_id)
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notification_deliveries_rule ON notification_deliveries (rule_id, id DESC);
