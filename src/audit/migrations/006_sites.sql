-- Sites: a URL audited again and again with the same settings (pa11y-dashboard's "task", Lighthouse CI's
-- "project"), owned like jobs by the credential that made it. `config` is the request's config as given (level,
-- version, crawl...), resolved against the operator's defaults and ceilings each time a run is queued.
CREATE TABLE sites (
  id text PRIMARY KEY,
  owner text NOT NULL,
  name text NOT NULL,
  url text NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  seq bigserial NOT NULL
);
CREATE INDEX sites_owner ON sites (owner, seq DESC);

-- A job queued for a site (run now, or its schedule) names it; deleting the site keeps its runs. `pages_done` counts
-- the pages a running job has recorded, for its progress (the same column as the console's runs list adds: IF NOT
-- EXISTS, so either migration may come first).
ALTER TABLE jobs ADD COLUMN site_id text REFERENCES sites (id) ON DELETE SET NULL;
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS pages_done integer NOT NULL DEFAULT 0;
-- Whether the finished run's notifications were decided (and their deliveries stored): set once, in the
-- transaction that stores the deliveries, so a restart neither loses nor repeats them.
ALTER TABLE jobs ADD COLUMN notified_at timestamptz;
CREATE INDEX jobs_site ON jobs (site_id, seq DESC) WHERE site_id IS NOT NULL;
CREATE INDEX jobs_to_notify ON jobs (seq) WHERE site_id IS NOT NULL AND notified_at IS NULL
  AND status IN ('completed', 'failed');

-- A site's schedule: `cron` is the expression that runs (daily and weekly are written as one), read in
-- `time_zone`. `next_run_at` is the next slot; an instance claims a due schedule with FOR UPDATE SKIP LOCKED and
-- moves next_run_at past now in the same transaction that queues the run, so one instance runs each slot once,
-- and slots missed while every instance was down run once, not once each.
CREATE TABLE schedules (
  site_id text PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('daily', 'weekly', 'cron')),
  cron text NOT NULL,
  time_zone text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  next_run_at timestamptz NOT NULL,
  last_run_at timestamptz,
  last_job_id text,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled;

-- Where a site's notices go. The webhook's secret (Standard Webhooks, whsec_…) is sealed with PLATFORM_SECRET_KEY,
-- bound to the site; it is answered once, when made.
CREATE TABLE site_notifications (
  site_id text PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
  emails text[] NOT NULL DEFAULT '{}',
  webhook_url text,
  webhook_secret_sealed text,
  on_score_drop boolean NOT NULL DEFAULT true,
  on_new_failures boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One notice to one destination. Stored with the decision (above); a worker claims a due one with SKIP LOCKED
-- and a lease, sends it, and records the outcome; a failure waits a backoff and is tried again up to a limit.
-- The message id is the Standard Webhooks `webhook-id`: a notice sent again after a crash carries the same id, so
-- a receiver can tell it is the same notice.
CREATE TABLE notification_deliveries (
  id text PRIMARY KEY,
  site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  job_id text,
  channel text NOT NULL CHECK (channel IN ('email', 'webhook')),
  target text NOT NULL,
  event text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')) DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  seq bigserial NOT NULL
);
CREATE INDEX deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_site ON notification_deliveries (site_id, seq DESC);
