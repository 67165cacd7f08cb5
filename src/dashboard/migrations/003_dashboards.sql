-- Dashboards and every version of each (the current one included), for history and restore.

CREATE TABLE dashboards (
  id           bigserial PRIMARY KEY,
  tenant_id    bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  slug         text NOT NULL,
  title        text NOT NULL,
  description  text,
  definition   jsonb NOT NULL,
  version      integer NOT NULL DEFAULT 1,
  created_by   bigint REFERENCES users (id) ON DELETE SET NULL,
  updated_by   bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, slug)
);
CREATE INDEX dashboards_tenant_created ON dashboards (tenant_id, created_at, id);
CREATE INDEX dashboards_tenant_updated ON dashboards (tenant_id, updated_at, id);
CREATE INDEX dashboards_tenant_title ON dashboards (tenant_id, lower(title), id);

CREATE TABLE dashboard_versions (
  dashboard_id  bigint NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
  version       integer NOT NULL,
  slug          text NOT NULL,
  title         text NOT NULL,
  description   text,
  definition    jsonb NOT NULL,
  created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- restored_from: the version whose content a restore brought back.
  restored_from integer,
  PRIMARY KEY (dashboard_id, version)
);
