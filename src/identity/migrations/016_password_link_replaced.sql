-- A new choose-your-password link replaces the person's older unused ones (src/identity/password-links/issue.ts): they
-- stop working at once and their page says a newer link exists, rather than "expired" or "not found".
ALTER TABLE password_links ADD COLUMN replaced_at timestamptz;
