-- The first step a pending second factor follows: 'pwd' after a password, or the social provider's id
-- (github, google, …) after a social sign-in, so the finished sign-in's amr and login session say how
-- the person really signed in.
ALTER TABLE mfa_pending ADD COLUMN first_factor text NOT NULL DEFAULT 'pwd';

-- When the sign-in that started a login session passed a second step (a code, a recovery code, a passkey),
-- so removing a factor can ask for a fresh one; NULL for a sign-in without one.
ALTER TABLE login_sessions ADD COLUMN second_factor_at timestamptz;
