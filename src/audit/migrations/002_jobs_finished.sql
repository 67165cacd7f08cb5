-- The retention sweep looks for finished jobs by when they finished; without this it would read the whole table each time.
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE status IN ('completed', 'failed', 'cancelled');
