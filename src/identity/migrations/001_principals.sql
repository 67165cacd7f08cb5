-- Every actor is a principal; its type selects one extension row (humans, applications, agents,
-- service_principals). organization_id has no foreign key yet: organizations arrive in a later migration.
CREATE TABLE principals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  type text NOT NULL CHECK (type IN ('human', 'application', 'agent', 'service')),
  identifier text NOT NULL UNIQUE CHECK (identifier <> ''),
  display_name text NOT NULL CHECK (display_name <> ''),
  active boolean NOT NULL DEFAULT true,
  capabilities jsonb NOT NULL DEFAULT '{}'::jsonb,
  allowed_scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  metadata jsonb,
  organization_id uuid
);
CREATE INDEX principals_type_idx ON principals (type, created_at);

CREATE TABLE humans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  email text NOT NULL CHECK (email <> ''),
  given_name text,
  family_name text,
  avatar_url text,
  locale text DEFAULT 'en',
  timezone text DEFAULT 'UTC',
  is_platform_admin boolean NOT NULL DEFAULT false,
  last_login_at timestamptz,
  email_verified_at timestamptz
);
-- Emails compare case-insensitively: two accounts must not differ only by case.
CREATE UNIQUE INDEX humans_email_key ON humans (lower(email));

CREATE TABLE service_principals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  service_type text NOT NULL CHECK (service_type <> ''),
  description text,
  last_used_at timestamptz,
  allowed_ips jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_by uuid REFERENCES principals (id) ON DELETE SET NULL
);

CREATE TABLE agents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  model_id text NOT NULL CHECK (model_id <> ''),
  version text,
  capability_constraints jsonb NOT NULL DEFAULT '{}'::jsonb,
  resource_constraints jsonb NOT NULL DEFAULT '{}'::jsonb,
  max_token_lifetime integer NOT NULL DEFAULT 3600 CHECK (max_token_lifetime > 0),
  session_id text,
  requires_confirmation boolean NOT NULL DEFAULT true,
  delegating_principal_id uuid REFERENCES principals (id) ON DELETE SET NULL
);

-- Credentials of every kind; a human's password is a row of type 'password' holding an scrypt hash.
CREATE TABLE credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('password', 'api_key', 'keypair', 'webauthn', 'totp', 'client_secret')),
  identifier text,
  secret_hash text,
  public_key text,
  key_algorithm text,
  key_id text UNIQUE,
  webauthn_credential_id bytea,
  webauthn_public_key bytea,
  webauthn_aaguid text,
  webauthn_sign_count bigint DEFAULT 0 CHECK (webauthn_sign_count BETWEEN 0 AND 4294967295),
  scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
  active boolean NOT NULL DEFAULT true,
  expires_at timestamptz,
  revoked boolean NOT NULL DEFAULT false,
  revoked_at timestamptz,
  revoked_reason text,
  last_used_at timestamptz,
  last_used_ip text,
  name text,
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (type, identifier)
);
CREATE INDEX credentials_principal_idx ON credentials (principal_id, type);
-- One live password per principal.
CREATE UNIQUE INDEX credentials_one_password ON credentials (principal_id) WHERE type = 'password' AND NOT revoked;
