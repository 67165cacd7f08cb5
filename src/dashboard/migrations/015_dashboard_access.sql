-- Per-dashboard access (dashboards/access.ts): a restricted dashboard is seen only by the tenant's admins, its
-- creator and the people listed; listed editors may also change it. Not versioned: a restore keeps who may see it.
ALTER TABLE dashboards ADD COLUMN restricted boolean NOT NULL DEFAULT false;
ALTER TABLE dashboards ADD COLUMN access_viewers bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE dashboards ADD COLUMN access_editors bigint[] NOT NULL DEFAULT '{}';
-- The list's total subtracts the restricted dashboards a caller cannot see from the kept count: few rows, found here.
CREATE INDEX dashboards_tenant_restricted ON dashboards (tenant_id) WHERE restricted;
