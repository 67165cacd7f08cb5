-- "Forgot password" (src/identity/password-links/recovery*.ts): a reset link is a password link of its own purpose, mailed
-- to the address on file, short-lived (IDENTITY_PASSWORD_RESET_TTL), single-use like a setup link. Spending it ends every
-- session and token of the person (store.ts).
ALTER TABLE password_links DROP CONSTRAINT password_links_purpose_check;
ALTER TABLE password_links ADD CONSTRAINT password_links_purpose_check CHECK (purpose IN ('setup', 'reset'));
