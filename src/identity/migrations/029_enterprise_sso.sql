-- Enterprise SSO per organization (docs/identity.md, "Enterprise SSO per organization"): one OpenID Connect connector per
-- organization, and the email domains an admin bound to it. A domain belongs to one organization at most (its primary
-- key), so an address never has two places to sign in.
CREATE TABLE enterprise_sso_connectors (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  issuer text NOT NULL,
  client_id text NOT NULL,
  -- AES-256-GCM with PLATFORM_SECRET_KEY, bound to the organization; null for a public client (PKCE only).
  client_secret_sealed text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE enterprise_sso_domains (
  domain text PRIMARY KEY CHECK (domain = lower(domain)),
  organization_id uuid NOT NULL REFERENCES enterprise_sso_connectors (organization_id) ON DELETE CASCADE
);
CREATE INDEX enterprise_sso_domains_organization ON enterprise_sso_domains (organization_id);
