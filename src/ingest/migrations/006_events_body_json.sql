-- `body` becomes json (the text as the service serialised it) instead of jsonb. The group commit
-- (src/ingest/events/committer.ts) measured half of PostgreSQL's CPU per event in building the jsonb tree;
-- json input only checks the text (5,000-row groups: 22 -> 17 µs of PostgreSQL CPU per row, bench/README.md).
-- What reads the body still works: `body->>'field'` exists for json (the dashboards' platform source), and
-- clients get the same object back. Keys now keep the order the client sent them in (jsonb sorted them).
-- SQL using jsonb-only functions on body (jsonb_typeof, @>, ?) needs json_typeof or a body::jsonb cast: the
-- dashboards' starter "Slowest API paths" query was changed accordingly (src/dashboard/provision/platform.ts).
-- Rewrites the table under an exclusive lock: on a large table, run it in a quiet hour (docs/ingest.md).
ALTER TABLE events ALTER COLUMN body TYPE json USING body::json;
