-- What the console's runs list shows of a job without reading its result: the start page's title, the score and the
-- stats (failures by impact), written when the job completes; and how many pages a running job has recorded.
ALTER TABLE jobs ADD COLUMN title text, ADD COLUMN score integer, ADD COLUMN stats jsonb,
  ADD COLUMN pages_done integer NOT NULL DEFAULT 0;
UPDATE jobs SET title = result -> 'pages' -> 0 ->> 'title', score = (result ->> 'score')::integer,
  stats = result -> 'stats', pages_done = coalesce((result -> 'stats' ->> 'totalPages')::integer, 0)
  WHERE status = 'completed' AND result IS NOT NULL;
-- The person who made a key in the console (`token:<subject>`): the key speaks for them. Null for a key made on the
-- command line, which is its own caller.
ALTER TABLE api_keys ADD COLUMN owner text;
CREATE INDEX api_keys_owner ON api_keys (owner, created_at) WHERE owner IS NOT NULL;
