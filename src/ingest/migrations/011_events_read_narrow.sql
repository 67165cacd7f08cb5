-- Issue 33: migration 010's four read indexes more than tripled PostgreSQL's CPU per stored event, on the two cores the
-- service shares with it (bench/README.md, "ingest: the read indexes on the write path (issue 33)"). Two changes,
-- each measured on the insert and on the reads over 10 million events:
--
-- The (project, time) index goes: the list without a type, session or user filter is read from the (project, type,
-- time) index instead, as the newest events of each type merged (src/ingest/read/store.ts), which costs a read a few
-- index probes per type and every insert one index update less. The types of a project are found in the hourly
-- counts, skipping from one type to the next on a (project, type) index of their own: a probe per type, whatever the
-- number of hours counted (event_counts gets ~15 rows per group commit, so this index costs an insert next to nothing).
--
-- The `user.id` index loses its predicate: with `WHERE (body ->> 'user.id') IS NOT NULL` PostgreSQL parsed every
-- inserted body twice (once for the predicate, once for the key); without it once, and an event without a `user.id`
-- is indexed under NULL (next to the project's other such events, so the insert stays cheap).
--
-- On a large table the new index reads every partition under a lock that holds inserts back, as 010's did: run this
-- migration in a quiet hour (docs/ingest.md).
DROP INDEX events_project_time;
CREATE INDEX event_counts_project_type ON event_counts (project_id, event_type);
DROP INDEX events_project_user_time;
CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC);
