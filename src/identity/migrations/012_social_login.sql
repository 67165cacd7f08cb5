-- Social login (Document 2): an upstream account, keyed by (provider, subject), finds its principal at
-- every later sign-in. login_states (002) keeps the in-flight logins; expired ones are purged by time.
CREATE TABLE external_identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  provider text NOT NULL CHECK (provider <> ''),
  subject text NOT NULL CHECK (subject <> ''),
  email text,
  email_verified boolean NOT NULL DEFAULT false,
  last_login_at timestamptz,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  UNIQUE (provider, subject)
);
CREATE INDEX external_identities_principal_idx ON external_identities (principal_id);
CREATE INDEX login_states_expires_idx ON login_states (expires_at);
