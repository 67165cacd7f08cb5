-- An application's recent token activity (GET /api/v1/applications/:id/activity, src/identity/oidc/token-activity.ts):
-- its tokens newest first, and its revocations newest first, each read from an index in that order instead of scanning
-- every app's tokens. The revocations' index is partial: a token inserted unrevoked adds nothing to it, so the hot
-- insert path pays for the first index only.
CREATE INDEX oauth_tokens_app_created_idx ON oauth_tokens (app_id, created_at, id);
CREATE INDEX oauth_tokens_app_revoked_idx ON oauth_tokens (app_id, revoked_at, id) WHERE revoked_at IS NOT NULL;
