-- Second factors and passkeys (issue 10). TOTP authenticators and WebAuthn passkeys are rows of
-- `credentials` (types 'totp' and 'webauthn'); these are the tables around them.

-- One confirmed TOTP authenticator per principal. An enrollment not yet confirmed with a first code is
-- a row with active = false; confirming flips it, so this index refuses a second live one.
CREATE UNIQUE INDEX credentials_one_totp ON credentials (principal_id) WHERE type = 'totp' AND active AND NOT revoked;

-- One-time recovery codes of a principal's TOTP factor, kept only as a keyed hash (HMAC-SHA-256 with a
-- key derived from PLATFORM_SECRET_KEY). They go with the authenticator they were issued with.
CREATE TABLE mfa_recovery_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  credential_id uuid NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
  code_hash text NOT NULL UNIQUE,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mfa_recovery_codes_principal_idx ON mfa_recovery_codes (principal_id);

-- A sign-in whose password was right and which now waits for the second factor, keyed by the SHA-256
-- of the provider's interaction id (the interaction is bound to the browser by the provider's cookie).
CREATE TABLE mfa_pending (
  interaction_hash text PRIMARY KEY,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX mfa_pending_expiry_idx ON mfa_pending (expires_at);

-- WebAuthn challenges: single use (deleted when presented) and short-lived. Only the challenge's
-- SHA-256 is kept, with what it is for and what it is bound to (an interaction or a login session).
CREATE TABLE webauthn_challenges (
  challenge_hash text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('register', 'sign_in', 'second_factor')),
  binding_hash text NOT NULL,
  principal_id uuid REFERENCES principals (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expiry_idx ON webauthn_challenges (expires_at);
