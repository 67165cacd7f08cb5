-- Per application: extra claims mapped from the person's profile, metadata or organization role (a declared list,
-- src/identity/apps/claim-mappings.ts; no code runs), and whether signing in to it needs a second factor. Per
-- organization: whether signing in to any app for it needs one.
ALTER TABLE oauth_apps ADD COLUMN claim_mappings jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE oauth_apps ADD COLUMN require_second_factor boolean NOT NULL DEFAULT false;
ALTER TABLE organizations ADD COLUMN require_second_factor boolean NOT NULL DEFAULT false;
