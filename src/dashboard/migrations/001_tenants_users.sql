-- Tenants, their users, sign-in sessions and tokens, and the audit log.

CREATE TABLE tenants (
  id          bigserial PRIMARY KEY,
  slug        text NOT NULL UNIQUE,
  name        text NOT NULL,
  plan        text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'enterprise')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id             bigserial PRIMARY KEY,
  tenant_id      bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email          text NOT NULL,
  name           text NOT NULL,
  role           text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
  active         boolean NOT NULL DEFAULT true,
  last_login_at  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- One user per person per tenant; a person (one email) may belong to several tenants.
CREATE UNIQUE INDEX users_tenant_email ON users (tenant_id, lower(email));
CREATE INDEX users_email ON users (lower(email));

-- Which provider account signed in as which user, so a later sign-in matches on the provider's
-- stable subject even when the email at the provider changes.
CREATE TABLE user_identities (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider    text NOT NULL,
  subject     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, subject, user_id)
);
CREATE INDEX user_identities_user ON user_identities (user_id);

-- A sign-in: the family of refresh tokens and access tokens it issued. Revoking it (logout, reuse
-- of a refresh token) ends every token of the family at once.
CREATE TABLE sessions (
  id          bigserial PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  revoked_why text
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE refresh_tokens (
  token_hash  text PRIMARY KEY,
  session_id  bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

-- Every access token issued, by hash: a token is honoured only while its row's session stands,
-- so logout and family revocation take effect before the JWT expires.
-- The claims hold no unique id, so two sign-ins of one user within a second get the same token:
-- the pair (token, session) is the key, and revoking a token ends every session holding it.
CREATE TABLE access_tokens (
  token_hash  text NOT NULL,
  session_id  bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  PRIMARY KEY (token_hash, session_id)
);
CREATE INDEX access_tokens_session ON access_tokens (session_id);
CREATE INDEX access_tokens_expiry ON access_tokens (expires_at);

-- A login in progress: the state cookie holds the id, the row holds the PKCE verifier and nonce.
CREATE TABLE login_states (
  id_hash        text PRIMARY KEY,
  provider       text NOT NULL,
  code_verifier  text NOT NULL,
  nonce          text NOT NULL,
  redirect       text,
  tenant_slug    text,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);

CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  tenant_id    bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id      bigint REFERENCES users (id) ON DELETE SET NULL,
  action       text NOT NULL,
  target_type  text NOT NULL,
  target_id    text,
  details      jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant ON audit_log (tenant_id, id DESC);
