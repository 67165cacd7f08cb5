-- External SQL databases a tenant's dashboards query. The connection URL is kept only sealed
-- (AES-256-GCM with the platform key, bound to the row's id); a source may instead name an
-- environment variable (with the configured prefix) that holds the URL.

CREATE TABLE data_sources (
  id                     bigserial PRIMARY KEY,
  tenant_id              bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name                   text NOT NULL,
  slug                   text NOT NULL,
  type                   text NOT NULL CHECK (type IN ('postgres', 'mysql')),
  connection_url_sealed  text,
  connection_url_env     text,
  max_connections        integer NOT NULL DEFAULT 10 CHECK (max_connections BETWEEN 1 AND 100),
  query_timeout_seconds  integer NOT NULL DEFAULT 30 CHECK (query_timeout_seconds BETWEEN 1 AND 3600),
  read_only              boolean NOT NULL DEFAULT true,
  ssl_enabled            boolean NOT NULL DEFAULT false,
  active                 boolean NOT NULL DEFAULT true,
  last_connected_at      timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CHECK ((connection_url_sealed IS NULL) <> (connection_url_env IS NULL))
);
CREATE UNIQUE INDEX data_sources_tenant_slug ON data_sources (tenant_id, slug);
