-- Invitations to organizations. The token is shown once (in the link) and kept only as its SHA-256;
-- status moves pending -> accepted | declined | expired | revoked and nowhere else.
CREATE TABLE invites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  email text NOT NULL CHECK (email <> ''),
  role text NOT NULL DEFAULT 'member' CHECK (role <> ''),
  token_hash text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'expired', 'revoked')),
  message text,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by_principal_id uuid REFERENCES principals (id) ON DELETE SET NULL,
  resend_count integer NOT NULL DEFAULT 0 CHECK (resend_count >= 0),
  last_sent_at timestamptz,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  inviter_principal_id uuid REFERENCES principals (id) ON DELETE SET NULL
);
CREATE INDEX invites_org_idx ON invites (organization_id, created_at);
-- One open invitation per address and organization.
CREATE UNIQUE INDEX invites_one_pending ON invites (organization_id, lower(email)) WHERE status = 'pending';
