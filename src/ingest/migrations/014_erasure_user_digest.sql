-- An erasure's record keeps what proves it happened, not the person it erased (docs/ingest.md, "Erasing a user's
-- events"; docs/decisions.md). `user_digest` is a keyed digest of the project and the user id (HMAC-SHA-256 under a key
-- derived from PLATFORM_SECRET_KEY: src/ingest/erasure/digest.ts), so an admin can still ask "was this user erased?"
-- by the id, and a suppression can be lifted across erasures, while the table alone does not give the id back, even
-- by hashing guessed emails. The clear `user_id` stays only while it is needed: until the erasure is completed (the
-- worker matches events by it) and while its suppression holds (every instance matches arriving events by it); then it
-- is set to NULL. Digests are computed in the service, with the key: rows from before this migration get theirs at
-- the next start (sealErasures), which also clears the ids those rows no longer need.
ALTER TABLE erasures ADD COLUMN user_digest text;
ALTER TABLE erasures ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE erasures ADD CONSTRAINT erasures_user_id_needed
  CHECK (user_id IS NOT NULL OR (status = 'completed' AND NOT (suppress AND suppression_lifted_at IS NULL)));
-- "Was this user erased?" (the list's `user_id` filter) and lifting every suppression of one user.
CREATE INDEX erasures_user_digest ON erasures (project_id, user_digest);
-- The rows the next start has to digest (none once it has).
CREATE INDEX erasures_undigested ON erasures (id) WHERE user_digest IS NULL;
