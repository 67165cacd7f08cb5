-- OAuth clients. The OAuth settings live here only; the application principal's extension row
-- (applications) points at it rather than keeping a second copy that could drift.
CREATE TABLE oauth_apps (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  client_id text NOT NULL UNIQUE CHECK (client_id <> ''),
  name text NOT NULL CHECK (name <> ''),
  description text,
  logo_url text,
  app_type text NOT NULL DEFAULT 'web' CHECK (app_type IN ('web', 'spa', 'native', 'service', 'machine')),
  redirect_uris jsonb NOT NULL DEFAULT '[]'::jsonb,
  allowed_grants jsonb NOT NULL DEFAULT '[]'::jsonb,
  allowed_response_types jsonb NOT NULL DEFAULT '[]'::jsonb,
  allowed_scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  access_token_ttl integer NOT NULL DEFAULT 900 CHECK (access_token_ttl > 0),
  refresh_token_ttl integer NOT NULL DEFAULT 604800 CHECK (refresh_token_ttl > 0),
  authorization_code_ttl integer NOT NULL DEFAULT 600 CHECK (authorization_code_ttl > 0),
  refresh_token_rotation boolean NOT NULL DEFAULT true,
  first_party boolean NOT NULL DEFAULT false,
  public boolean NOT NULL DEFAULT false,
  active boolean NOT NULL DEFAULT true,
  revoked_at timestamptz,
  metadata jsonb,
  organization_id uuid,
  owner_id uuid REFERENCES principals (id) ON DELETE SET NULL,
  principal_id uuid NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE
);

CREATE TABLE applications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  client_id text NOT NULL UNIQUE,
  oauth_app_id uuid NOT NULL UNIQUE REFERENCES oauth_apps (id) ON DELETE CASCADE
);

CREATE TABLE oauth_app_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL REFERENCES oauth_apps (id) ON DELETE CASCADE,
  secret_hash text NOT NULL UNIQUE,
  secret_prefix text NOT NULL,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked boolean NOT NULL DEFAULT false,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_app_secrets_app_idx ON oauth_app_secrets (app_id);

-- A grant is one authorization of a client by a principal; every token it yields belongs to its
-- refresh family (family_id), so reuse of a rotated refresh token revokes the grant and all its tokens.
CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  grant_hash text NOT NULL UNIQUE,
  client_id text NOT NULL,
  account_id text,
  payload text NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_grants_account_idx ON oauth_grants (account_id, client_id);

-- One row per token the provider issues: access tokens and client-credentials tokens carry
-- access_token_signature, refresh tokens refresh_token_signature (hex SHA-256 of the token, never the token).
CREATE TABLE oauth_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind IN ('access_token', 'client_credentials', 'refresh_token')),
  access_token_signature text UNIQUE,
  refresh_token_signature text UNIQUE,
  family_id uuid,
  grant_hash text,
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  audience jsonb NOT NULL DEFAULT '[]'::jsonb,
  session_id text,
  request_data text,
  access_expires_at timestamptz,
  refresh_expires_at timestamptz,
  consumed_at timestamptz,
  revoked boolean NOT NULL DEFAULT false,
  revoked_at timestamptz,
  revoked_reason text,
  client_ip text,
  user_agent text,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  subject text,
  principal_id uuid,
  client_id text NOT NULL,
  app_id uuid REFERENCES oauth_apps (id) ON DELETE CASCADE,
  payload text NOT NULL,
  CHECK ((access_token_signature IS NULL) <> (refresh_token_signature IS NULL))
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_hash) WHERE grant_hash IS NOT NULL;
CREATE INDEX oauth_tokens_principal_idx ON oauth_tokens (principal_id, created_at);
CREATE INDEX oauth_tokens_expiry_idx ON oauth_tokens (coalesce(refresh_expires_at, access_expires_at));

CREATE TABLE oauth_auth_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  code_signature text NOT NULL UNIQUE,
  grant_hash text,
  subject text,
  code_challenge text,
  code_challenge_method text DEFAULT 'S256',
  redirect_uri text NOT NULL,
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  state text,
  nonce text,
  request_data text,
  expires_at timestamptz NOT NULL,
  used boolean NOT NULL DEFAULT false,
  used_at timestamptz,
  revoked boolean NOT NULL DEFAULT false,
  client_ip text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  client_id text NOT NULL,
  app_id uuid REFERENCES oauth_apps (id) ON DELETE CASCADE,
  payload text NOT NULL
);
CREATE INDEX oauth_auth_codes_grant_idx ON oauth_auth_codes (grant_hash);
CREATE INDEX oauth_auth_codes_expiry_idx ON oauth_auth_codes (expires_at);

-- The service's own browser login session: the cookie __Host-svc_login holds the token, this its SHA-256.
CREATE TABLE login_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash text NOT NULL UNIQUE,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  provider text,
  client_ip text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX login_sessions_principal_idx ON login_sessions (principal_id);

-- In-flight upstream (social) logins; used by the later social-login issue.
CREATE TABLE login_states (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  state_hash text NOT NULL UNIQUE,
  provider text NOT NULL,
  redirect_url text,
  nonce text,
  pkce_verifier text,
  expires_at timestamptz NOT NULL
);

-- The provider's other artifacts (its session, interactions, replay detection...): keyed by the
-- SHA-256 of their id, payload sealed with PLATFORM_SECRET_KEY.
CREATE TABLE oidc_artifacts (
  model text NOT NULL,
  id_hash text NOT NULL,
  uid_hash text,
  grant_hash text,
  payload text NOT NULL,
  consumed_at timestamptz,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, id_hash)
);
CREATE INDEX oidc_artifacts_uid_idx ON oidc_artifacts (model, uid_hash) WHERE uid_hash IS NOT NULL;
CREATE INDEX oidc_artifacts_expiry_idx ON oidc_artifacts (expires_at);

CREATE TABLE oauth_consents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  app_id uuid NOT NULL REFERENCES oauth_apps (id) ON DELETE CASCADE,
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  granted boolean NOT NULL DEFAULT true,
  granted_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked boolean NOT NULL DEFAULT false,
  revoked_at timestamptz,
  revoked_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (principal_id, app_id)
);

CREATE TABLE consent_grants (
  principal_id text NOT NULL,
  client_id text NOT NULL,
  scope text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal_id, client_id, scope)
);

-- RS256 signing keys; the private half sealed with PLATFORM_SECRET_KEY. A retired key stays
-- published in the JWKS until publish_until, when nothing it signed can still be valid.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL DEFAULT 'RS256',
  public_jwk jsonb NOT NULL,
  private_jwk_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz,
  publish_until timestamptz
);
