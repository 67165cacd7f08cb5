-- Named SQL against one data source, run by viewers with parameter values only.

CREATE TABLE saved_queries (
  id              bigserial PRIMARY KEY,
  tenant_id       bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  data_source_id  bigint NOT NULL REFERENCES data_sources (id) ON DELETE CASCADE,
  name            text NOT NULL,
  description     text,
  query           text NOT NULL,
  created_by      bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_queries_tenant ON saved_queries (tenant_id, id);
CREATE INDEX saved_queries_data_source ON saved_queries (data_source_id);
