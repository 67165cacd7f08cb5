-- The project's own and test users, left out of the read API's list and counts on `internal=exclude` (the console's
-- "Hide internal and test users"): each entry a `user.id`, exact (`ann@example.com`) or a prefix ending in `*`
-- (`test-*`). Set from the console or the admin API (PUT /api/v1/projects/{id}/internal-users), read on every read
-- that asks for it, so a change counts on the next one. Nothing else changes: the counts leave these users out by
-- subtracting their events, read through migration 011's (project, user.id, time) index.
ALTER TABLE projects ADD COLUMN internal_users text[] NOT NULL DEFAULT '{}';
