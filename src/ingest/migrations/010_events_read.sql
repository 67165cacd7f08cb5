-- Reading events back (src/ingest/read): the console's explorer and the read API list a project's events newest
-- first, by type, by session or by user, and count them by type and by hour or day. Measured on 10 million events
-- in bench/ingest-read.ts (bench/README.md).
--
-- Indexes on the partitioned table: PostgreSQL builds one on every partition, and a daily partition made later
-- (retention/partitions.ts, attached to the table) gets them at its ATTACH. On a large existing table the build
-- reads every partition under a lock that holds inserts back: run this migration in a quiet hour (docs/ingest.md).
-- Each index costs every insert its update; `user.id` is read from the json body once per insert for the last one.
CREATE INDEX events_project_time ON events (project_id, event_ts DESC, id DESC);
CREATE INDEX events_project_type_time ON events (project_id, event_type, event_ts DESC, id DESC);
CREATE INDEX events_project_session_time ON events (project_id, session_id, event_ts DESC, id DESC);
CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC)
  WHERE (body ->> 'user.id') IS NOT NULL;

-- Counts by hour and type, so counting 30 days reads a few thousand rows rather than every event of the month.
-- Rows are only ever appended by the insert trigger below (one per project, hour and type of each INSERT or COPY
-- statement): concurrent group commits never wait on one another's row as an upsert of the same hour would make
-- them. The partition maintenance folds them into one row per project, hour and type (read/rollup.ts), and drops
-- the rows of a partition it drops. A reader sums whatever rows there are.
CREATE TABLE event_counts (
  project_id text NOT NULL,
  hour timestamptz NOT NULL,
  event_type text NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX event_counts_project_hour ON event_counts (project_id, hour);

CREATE FUNCTION count_inserted_events() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO event_counts (project_id, hour, event_type, n)
  SELECT project_id, date_trunc('hour', event_ts, 'UTC'), event_type, count(*)
  FROM inserted_events
  GROUP BY 1, 2, 3;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_count
AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted_events
FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_events();

-- The events already stored, counted once.
INSERT INTO event_counts (project_id, hour, event_type, n)
SELECT project_id, date_trunc('hour', event_ts, 'UTC'), event_type, count(*)
FROM events
GROUP BY 1, 2, 3;
