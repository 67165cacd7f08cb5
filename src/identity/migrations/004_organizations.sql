-- Organizations and the memberships of principals in them (Document 2). A membership is never deleted,
-- only deactivated, so who belonged where stays on record; one per (principal, organization).
CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  name text NOT NULL CHECK (name <> ''),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'),
  org_type text NOT NULL DEFAULT 'team' CHECK (org_type IN ('personal', 'team', 'enterprise')),
  logo_url text,
  description text,
  website_url text,
  settings jsonb,
  active boolean NOT NULL DEFAULT true,
  owner_principal_id uuid REFERENCES principals (id) ON DELETE SET NULL
);

CREATE TABLE principal_memberships (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  role text NOT NULL CHECK (role <> ''),
  permissions jsonb,
  active boolean NOT NULL DEFAULT true,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  principal_id uuid NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  UNIQUE (principal_id, organization_id)
);
CREATE INDEX principal_memberships_org_idx ON principal_memberships (organization_id, principal_id);

-- A principal's home organization, now that organizations exist.
ALTER TABLE principals ADD CONSTRAINT principals_organization_fk FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE SET NULL;
CREATE INDEX principals_organization_idx ON principals (organization_id) WHERE organization_id IS NOT NULL;
