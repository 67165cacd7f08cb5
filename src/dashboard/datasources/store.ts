import type { Queryable } from '../../kit/db.ts';
import type { DataSourceType } from '../sql/driver.ts';

export type SqlRole = 'editor' | 'admin' | 'owner';

export interface DataSourceRow {
  id: number;
  tenant_id: number;
  name: string;
  slug: string;
  type: DataSourceType;
  connection_url_sealed: string | null;
  connection_url_env: string | null;
  max_connections: number;
  query_timeout_seconds: number;
  read_only: boolean;
  ssl_enabled: boolean;
  active: boolean;
  /** The least role that may write SQL on the source: ad hoc, and stored in saved queries and widgets. */
  sql_role: SqlRole;
  /** One more at every update: what the settings opened for running are keyed by (sql/settings.ts). */
  version: number;
  last_connected_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The slug is already used by another data source of the tenant. */
export class DataSourceSlugTaken extends Error {}

const COLUMN_NAMES = [
  'id',
  'tenant_id',
  'name',
  'slug',
  'type',
  'connection_url_sealed',
  'connection_url_env',
  'max_connections',
  'query_timeout_seconds',
  'read_only',
  'ssl_enabled',
  'active',
  'sql_role',
  'version',
  'last_connected_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DataSourceRow)[];
const INT_COLUMNS = new Set<string>(['id', 'tenant_id']);

/** A row's columns read from table alias `alias`, each named `<prefix><column>`. */
export function dataSourceColumns(alias: string, prefix: string): string {
  return COLUMN_NAMES.map((c) => `${alias}.${c}${INT_COLUMNS.has(c) ? '::int' : ''} AS ${prefix}${c}`).join(', ');
}

/** The row `dataSourceColumns(alias, prefix)` read, out of a wider one; undefined when its id is null (no row joined). */
export function dataSourceFrom(row: Record<string, unknown>, prefix: string): DataSourceRow | undefined {
  const names = prefixedNames(prefix);
  if (row[names[0]![1]] == null) return undefined;
  const out: Record<string, unknown> = {};
  for (const [column, name] of names) out[column] = row[name];
  return out as unknown as DataSourceRow;
}

const prefixed = new Map<string, [string, string][]>();
function prefixedNames(prefix: string): [string, string][] {
  let names = prefixed.get(prefix);
  if (!names) {
    names = COLUMN_NAMES.map((c) => [c, `${prefix}${c}`]);
    prefixed.set(prefix, names);
  }
  return names;
}

const COLUMNS = COLUMN_NAMES.map((c) => (INT_COLUMNS.has(c) ? `${c}::int AS ${c}` : c)).join(', ');

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

export async function getDataSource(
  db: Queryable,
  tenantId: number,
  id: number,
  forUpdate = false,
): Promise<DataSourceRow | undefined> {
  const r = await db.query<DataSourceRow>(
    `SELECT ${COLUMNS} FROM data_sources WHERE tenant_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [tenantId, id],
  );
  return r.rows[0];
}

export async function listDataSources(
  db: Queryable,
  tenantId: number,
  filter: { active?: boolean | undefined; type?: DataSourceType | undefined },
): Promise<DataSourceRow[]> {
  const r = await db.query<DataSourceRow>(
    `SELECT ${COLUMNS} FROM data_sources WHERE tenant_id = $1 AND ($2::boolean IS NULL OR active = $2) AND ($3::text IS NULL OR type = $3) ORDER BY name, id`,
    [tenantId, filter.active ?? null, filter.type ?? null],
  );
  return r.rows;
}

/** The id the next data source will get, so its URL can be sealed bound to it before the row is written. */
export async function nextDataSourceId(db: Queryable): Promise<number> {
  const r = await db.query<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('data_sources', 'id'))::int AS id`);
  return r.rows[0]!.id;
}

export type DataSourceValues = Pick<
  DataSourceRow,
  | 'name'
  | 'slug'
  | 'type'
  | 'connection_url_sealed'
  | 'connection_url_env'
  | 'max_connections'
  | 'query_timeout_seconds'
  | 'read_only'
  | 'ssl_enabled'
  | 'active'
  | 'sql_role'
>;

export async function insertDataSource(
  db: Queryable,
  id: number,
  tenantId: number,
  v: DataSourceValues,
): Promise<DataSourceRow> {
  try {
    const r = await db.query<DataSourceRow>(
      `INSERT INTO data_sources (id, tenant_id, name, slug, type, connection_url_sealed, connection_url_env, max_connections, query_timeout_seconds, read_only, ssl_enabled, active, sql_role)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
      [
        id,
        tenantId,
        v.name,
        v.slug,
        v.type,
        v.connection_url_sealed,
        v.connection_url_env,
        v.max_connections,
        v.query_timeout_seconds,
        v.read_only,
        v.ssl_enabled,
        v.active,
        v.sql_role,
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DataSourceSlugTaken(`a data source with slug "${v.slug}" already exists`);
    throw err;
  }
}

export async function updateDataSource(db: Queryable, id: number, v: DataSourceValues): Promise<DataSourceRow> {
  try {
    const r = await db.query<DataSourceRow>(
      `UPDATE data_sources SET name = $2, slug = $3, type = $4, connection_url_sealed = $5, connection_url_env = $6, max_connections = $7,
         query_timeout_seconds = $8, read_only = $9, ssl_enabled = $10, active = $11, sql_role = $12, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        v.name,
        v.slug,
        v.type,
        v.connection_url_sealed,
        v.connection_url_env,
        v.max_connections,
        v.query_timeout_seconds,
        v.read_only,
        v.ssl_enabled,
        v.active,
        v.sql_role,
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DataSourceSlugTaken(`a data source with slug "${v.slug}" already exists`);
    throw err;
  }
}

export async function deleteDataSource(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM data_sources WHERE id = $1', [id]);
}

export async function markConnected(db: Queryable, id: number): Promise<Date> {
  const r = await db.query<{ at: Date }>(
    'UPDATE data_sources SET last_connected_at = now() WHERE id = $1 RETURNING last_connected_at AS at',
    [id],
  );
  return r.rows[0]!.at;
}
