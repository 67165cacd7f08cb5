-- Public links to dashboards (Grafana's shared dashboards): anyone with the link sees the dashboard's charts, never
-- its SQL. The token is looked up by its SHA-256; it is also kept sealed (AES-256-GCM with the platform key, bound
-- to the dashboard) so an editor can copy the link again, and never stored in clear.

CREATE TABLE dashboard_shares (
  dashboard_id  bigint PRIMARY KEY REFERENCES dashboards (id) ON DELETE CASCADE,
  tenant_id     bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  token_hash    text NOT NULL UNIQUE,
  token_sealed  text NOT NULL,
  created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
