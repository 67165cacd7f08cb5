-- Dashboard subscriptions (Metabase's): a dashboard mailed on a schedule as its owner sees it (an image of the page
-- and each widget's data as CSV) with the dashboard's parameters fixed. Sending is claimed per subscription by a
-- lease as alert rules are; a run row per scheduled time is the guard against sending one slot twice.

CREATE TABLE dashboard_subscriptions (
  id             bigserial PRIMARY KEY,
  tenant_id      bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  dashboard_id   bigint NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
  owner_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  frequency      text NOT NULL CHECK (frequency IN ('hourly', 'daily', 'weekly')),
  minute         integer NOT NULL DEFAULT 0 CHECK (minute BETWEEN 0 AND 59),
  hour           integer NOT NULL DEFAULT 8 CHECK (hour BETWEEN 0 AND 23),
  weekday        integer NOT NULL DEFAULT 1 CHECK (weekday BETWEEN 0 AND 6),
  timezone       text NOT NULL DEFAULT 'UTC',
  user_ids       bigint[] NOT NULL DEFAULT '{}',
  addresses      text[] NOT NULL DEFAULT '{}',
  parameters     jsonb NOT NULL DEFAULT '{}',
  enabled        boolean NOT NULL DEFAULT true,
  next_run_at    timestamptz NOT NULL,
  lease_owner    text,
  lease_until    timestamptz,
  last_sent_at   timestamptz,
  last_error     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_subscriptions_dashboard ON dashboard_subscriptions (tenant_id, dashboard_id, id);
CREATE INDEX dashboard_subscriptions_due ON dashboard_subscriptions (next_run_at) WHERE enabled;

CREATE TABLE subscription_runs (
  id               bigserial PRIMARY KEY,
  subscription_id  bigint NOT NULL REFERENCES dashboard_subscriptions (id) ON DELETE CASCADE,
  scheduled_for    timestamptz NOT NULL,
  status           text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
  detail           text,
  started_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  UNIQUE (subscription_id, scheduled_for)
);
