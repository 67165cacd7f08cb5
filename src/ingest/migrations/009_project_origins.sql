-- The browser origins allowed to send a project's events, beside INGEST_ALLOWED_ORIGINS (allowed for every project):
-- set from the console or the admin API (PUT /api/v1/projects/{id}/origins), each one `scheme://host[:port]`.
ALTER TABLE projects ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
