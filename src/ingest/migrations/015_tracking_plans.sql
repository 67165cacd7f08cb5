-- A project's tracking plan (docs/ingest.md, "Tracking plan"): the event types it expects and, per type, the
-- properties it requires and their JSON types, with a mode (`off`, `report`, `enforce`). NULL: no plan (off). Held in
-- memory by every instance (tracking-plan/cache.ts), so a batch never reads it.
ALTER TABLE projects ADD COLUMN tracking_plan json;

-- Events that broke their project's plan, by hour, event and reason. Each instance tallies them in memory and appends
-- one row per (project, hour, event, reason) it saw every few seconds (tracking-plan/violations.ts): never a write per
-- event, and appended rather than upserted so instances never wait on one another's row. A reader sums the rows.
CREATE TABLE tracking_plan_violations (
  project_id text NOT NULL,
  hour timestamptz NOT NULL,
  event_name text NOT NULL,
  reason text NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX tracking_plan_violations_project_hour ON tracking_plan_violations (project_id, hour);
