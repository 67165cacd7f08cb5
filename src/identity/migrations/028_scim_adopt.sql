-- A SCIM connection may adopt people the platform had before it was connected (docs/identity.md, "SCIM provisioning"):
-- off unless an admin turns it on for that connection, so a leaked token cannot take over accounts by default.
ALTER TABLE scim_connections ADD COLUMN adopt_existing boolean NOT NULL DEFAULT false;
