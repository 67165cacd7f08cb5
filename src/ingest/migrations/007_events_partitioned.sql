-- Retention: `events` becomes a table partitioned by the day of `event_ts` (UTC), so old events go by dropping a
-- whole partition instead of deleting rows (docs/ingest.md, "Retention"). Daily partitions `events_YYYYMMDD` are made
-- ahead of time by the service (src/ingest/retention/partitions.ts); `events_default` takes an event of a day that
-- has none (a device's clock years off, a day before the partitions made).
--
-- The existing table is kept as it is, rows and indexes, and attached as the partition of everything before
-- tomorrow (`events_before_YYYYMMDD`): no row is rewritten, the table is read once to check the range (and once to
-- move events dated tomorrow or later, if any, to `events_default`). An empty table is dropped instead.
--
-- A unique index of a partitioned table must hold the partition key, so (project_id, event_id) is unique within each
-- partition rather than across the table: every partition carries its own UNIQUE (project_id, event_id) and
-- PRIMARY KEY (id), none is declared on `events` itself, and inserts use ON CONFLICT DO NOTHING without a target
-- (which takes every unique index of the partition a row goes to). A retried event has the same event.timestamp,
-- hence the same partition, and is recognised for as long as that partition is kept.
DO $$
DECLARE
  tomorrow timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day';
  legacy text := 'events_before_' || to_char(tomorrow AT TIME ZONE 'UTC', 'YYYYMMDD');
  grant_row record;
  has_rows boolean;
BEGIN
  -- The triggers move to the partitioned table below; statements on a partition directly fire none of them.
  DROP TRIGGER events_enqueue_for_forwarding ON events;
  DROP TRIGGER events_check_project ON events;
  EXECUTE format('ALTER TABLE events RENAME TO %I', legacy);

  CREATE TABLE events (
    id bigint NOT NULL DEFAULT nextval('events_id_seq'),
    project_id text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    event_ts timestamptz NOT NULL,
    session_id text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    body json NOT NULL
  ) PARTITION BY RANGE (event_ts);
  -- The ids go on from the old table's sequence (the outbox and the dead letters refer to rows by id).
  ALTER SEQUENCE events_id_seq OWNED BY events.id;

  CREATE TABLE events_default PARTITION OF events DEFAULT;
  ALTER TABLE events_default ADD PRIMARY KEY (id), ADD UNIQUE (project_id, event_id);

  -- Whoever could read the old table (the dashboards' read-only role) reads the new one.
  FOR grant_row IN
    SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
    FROM pg_class c, aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
    WHERE c.oid = to_regclass(quote_ident(legacy)) AND a.grantee <> c.relowner
  LOOP
    EXECUTE format('GRANT %s ON events TO %s', grant_row.privilege_type, grant_row.grantee);
  END LOOP;

  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', legacy) INTO has_rows;
  IF NOT has_rows THEN
    EXECUTE format('DROP TABLE %I', legacy);
  ELSE
    EXECUTE format(
      'WITH moved AS (DELETE FROM %I WHERE event_ts >= %L RETURNING *) INSERT INTO events_default SELECT * FROM moved',
      legacy, tomorrow);
    -- Checked here once, so that attaching it does not read the table a second time.
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (event_ts < %L)', legacy, legacy || '_range', tomorrow);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', legacy, tomorrow);
  END IF;
END;
$$;

-- The same statement triggers as before (migrations 002 and 003), on the partitioned table: they see the rows one
-- INSERT or COPY stored, in whichever partitions they went.
CREATE TRIGGER events_enqueue_for_forwarding
AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted_events
FOR EACH STATEMENT EXECUTE FUNCTION enqueue_for_forwarding();

CREATE TRIGGER events_check_project
AFTER INSERT ON events
REFERENCING NEW TABLE AS inserted_events
FOR EACH STATEMENT EXECUTE FUNCTION check_inserted_event_projects();

-- A project's own retention in days; a project without a row keeps its events for INGEST_RETENTION_DAYS.
CREATE TABLE project_retention (
  project_id text PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  days integer NOT NULL CHECK (days BETWEEN 1 AND 36500),
  updated_at timestamptz NOT NULL DEFAULT now()
);
