import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ReadOnlyGrant {
  /** The schema and the tables of it the role may read, e.g. `ingest` and `['events', 'projects']`. */
  schema: string;
  tables: string[];
  /** Names the role, with the database and the tenant: roles are shared by every database of a server. */
  part: string;
  tenantId: number;
  /** Which service's tables, for messages (`ingest`). */
  service: string;
}

/** The role's name: `dashboard_ro_<database hash>_<tenant>_<part>`, within PostgreSQL's 63 characters. */
export function readOnlyRoleName(database: string, tenantId: number, part: string): string {
  return `dashboard_ro_${createHash('sha256').update(database).digest('hex').slice(0, 10)}_${tenantId}_${part}`.slice(
    0,
    63,
  );
}

/**
 * The platform data sources must not read with the platform's own database user: on a shared DATABASE_URL that
 * user reads every service's schema (identity's principals, every service's hashed keys). So a login role is made
 * (or given a new password) that may only SELECT the named tables, and the source connects as it. Answers the
 * URL to connect with, or why that is not possible (the tables are not made yet, the user may not create roles).
 */
export async function readOnlyUrl(
  adminUrl: string,
  grant: ReadOnlyGrant,
): Promise<{ url: string } | { reason: string; notYet?: boolean }> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const qualified = grant.tables.map((t) => `${grant.schema}.${t}`);
    const { rows } = await client.query<{ missing: string[] }>(
      `SELECT array(SELECT t FROM unnest($1::text[]) t WHERE to_regclass(t) IS NULL) AS missing`,
      [qualified],
    );
    if (rows[0]!.missing.length) {
      return {
        reason: `the ${grant.service} service's tables (${rows[0]!.missing.join(', ')}) do not exist yet: start the ${grant.service} service once, then run \`platform dashboard provision\``,
        notYet: true,
      };
    }
    const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
    const role = readOnlyRoleName(database, grant.tenantId, grant.part);
    const password = randomBytes(24).toString('base64url');
    const id = client.escapeIdentifier(role);
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount;
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${id} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION PASSWORD ${client.escapeLiteral(password)}`,
    );
    await client.query(`GRANT CONNECT ON DATABASE ${client.escapeIdentifier(database)} TO ${id}`);
    await client.query(`GRANT USAGE ON SCHEMA ${client.escapeIdentifier(grant.schema)} TO ${id}`);
    await client.query(
      `GRANT SELECT ON ${grant.tables.map((t) => `${client.escapeIdentifier(grant.schema)}.${client.escapeIdentifier(t)}`).join(', ')} TO ${id}`,
    );
    const url = new URL(adminUrl);
    url.username = encodeURIComponent(role);
    url.password = encodeURIComponent(password);
    return { url: url.toString() };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '42501') {
      return {
        reason: `the database user may not create a read-only role for the ${grant.service} tables (${(err as Error).message}): set DASHBOARD_PLATFORM_${grant.service.toUpperCase()}_URL to a user that may only SELECT them`,
      };
    }
    return { reason: `the ${grant.service} service's database could not be prepared: ${(err as Error).message}` };
  } finally {
    await client.end().catch(() => {});
  }
}
