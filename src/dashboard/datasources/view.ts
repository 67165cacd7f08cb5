import type { DataSourceRow } from './store.ts';

/** A data source as listed: never its URL nor the variable naming it. */
export function listItem(r: DataSourceRow) {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    type: r.type,
    maxConnections: r.max_connections,
    queryTimeoutSeconds: r.query_timeout_seconds,
    readOnly: r.read_only,
    sslEnabled: r.ssl_enabled,
    active: r.active,
    sqlRole: r.sql_role,
    lastConnectedAt: r.last_connected_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** One data source: the variable's name, and whether a sealed URL is stored (its value never). */
export const detail = (r: DataSourceRow) => ({
  ...listItem(r),
  connectionUrlEnv: r.connection_url_env,
  hasConnectionUrl: r.connection_url_sealed !== null,
});

export const created = (r: DataSourceRow) => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  type: r.type,
  active: r.active,
  createdAt: r.created_at.toISOString(),
});
