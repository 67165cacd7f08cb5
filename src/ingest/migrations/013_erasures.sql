-- Erasure of a user's events (GDPR's right to erasure; Segment's "Delete and Suppress", PostHog's person deletion):
-- an admin asks for every stored event of a project whose `user.id` is a given value to be deleted, and optionally for
-- that user's later events to be dropped on arrival (docs/ingest.md, "Erasing a user's events"). Each request is a row
-- kept for good: who asked and when, how far the worker got, whether it suppresses the user.
--
-- The worker (src/ingest/erasure/worker.ts) claims an unfinished erasure with a lease, as forwarding claims its
-- outbox: a row whose lease is held is left alone by every other instance, and one whose holder died is taken again
-- once the lease runs out. It deletes the user's events through migration 011's (project, user.id, time) index in
-- batches of INGEST_ERASURE_BATCH_EVENTS, each batch one transaction that also takes the events out of the hourly
-- counts and out of forwarding, and adds to `deleted`: a restart goes on from what is left.
CREATE TABLE erasures (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  -- The user's id as events carry it: what the worker deletes and, with `suppress`, what new events are dropped for.
  user_id text NOT NULL,
  suppress boolean NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed')),
  deleted bigint NOT NULL DEFAULT 0,
  -- `person:<sub>` of an identity access token, `app:<client_id>` of an app's own, `admin-token` for INGEST_ADMIN_TOKEN.
  requested_by text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  leased_until timestamptz,
  lease_token text,
  suppression_lifted_at timestamptz,
  suppression_lifted_by text
);
-- A project's erasures, newest first (the admin API's list).
CREATE INDEX erasures_project_newest ON erasures (project_id, requested_at DESC, id DESC);
-- What the worker looks for at every poll: only the unfinished ones, so the poll stays one probe of a small index.
CREATE INDEX erasures_unfinished ON erasures (requested_at) WHERE status <> 'completed';
-- The users whose new events are dropped (read whole by every instance into memory: src/ingest/erasure/suppressions.ts).
CREATE INDEX erasures_suppressing ON erasures (project_id, user_id) WHERE suppress AND suppression_lifted_at IS NULL;

-- Forwarding refers to events by row id: an erased event's outbox entries and dead letters (which keep the event's
-- `event_id` and the vendor's reason, which may quote it) go with it, found through these rather than by reading the
-- project's whole queue at every batch. The outbox one costs each queued event one more index entry, and only for
-- projects with an enabled destination.
CREATE INDEX outbox_event_row ON outbox (event_row_id);
CREATE INDEX dead_letters_event_row ON dead_letters (event_row_id);
