-- Inbound SCIM 2.0 provisioning (src/identity/scim/): an enterprise's directory (Okta, Entra ID, OneLogin, JumpCloud)
-- creates, updates and deactivates people here. A connection is one directory, with one bearer token at a time; only
-- the token's SHA-256 is kept (the token is shown once, when made).
CREATE TABLE scim_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (name <> ''),
  -- The token's first characters (`scim_` and 8 more), to tell tokens apart in a list.
  token_prefix text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  token_created_at timestamptz NOT NULL DEFAULT now(),
  -- Set by a revocation: the token opens nothing until a new one is made.
  revoked_at timestamptz,
  last_used_at timestamptz
);

-- The people a connection provisioned: it sees and changes only these. A SCIM DELETE deactivates the person (the
-- platform never deletes a principal) and hides them from the connection (deleted_at), as RFC 7644 3.6 allows.
CREATE TABLE scim_users (
  principal_id uuid PRIMARY KEY REFERENCES principals (id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES scim_connections (id) ON DELETE CASCADE,
  external_id text,
  -- The addresses as the directory sent them ([{value, type, primary}]); the person's sign-in email is userName.
  emails jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX scim_users_connection_idx ON scim_users (connection_id, created_at, principal_id);

-- The groups a connection provisioned: each is an organization (its displayName the organization's name), and its
-- members are memberships (role `member`) of the connection's people. A DELETE deactivates the organization and hides
-- it from the connection, as for people.
CREATE TABLE scim_groups (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES scim_connections (id) ON DELETE CASCADE,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX scim_groups_connection_idx ON scim_groups (connection_id, created_at, organization_id);

-- A SCIM connection is an actor of the change log of its own (actor_id: the connection).
ALTER TABLE admin_changes DROP CONSTRAINT admin_changes_actor_kind_check;
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_actor_kind_check
  CHECK (actor_kind IN ('person', 'admin-token', 'platform', 'command', 'anonymous', 'scim'));
