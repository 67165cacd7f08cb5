import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { AlsoWrite } from '../principals/store.ts';

/** A SCIM token: `scim_` and 43 characters (32 random bytes). Only its SHA-256 is stored. */
export const TOKEN_PREFIX = 'scim_';
const SHOWN = TOKEN_PREFIX.length + 8;

/** One enterprise directory allowed to provision people, as the management API shows it (never its token). */
export interface ConnectionView {
  id: string;
  name: string;
  token_prefix: string;
  created_at: string;
  token_created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The people it provisioned and has not deleted. */
  people: number;
  /** Whether a POST /Users of an email someone already signs in with links that person (users.ts): off by default. */
  adopt_existing: boolean;
}

/** What an admin sets of a connection besides its token. */
export interface ConnectionSettings {
  name?: string | undefined;
  adoptExisting?: boolean | undefined;
}

const COLUMNS = `c.id, c.name, c.token_prefix, ${isoUtc('c.created_at')} AS created_at,
  ${isoUtc('c.token_created_at')} AS token_created_at, ${isoUtc('c.revoked_at')} AS revoked_at,
  ${isoUtc('c.last_used_at')} AS last_used_at, c.adopt_existing,
  (SELECT count(*)::int FROM scim_users u WHERE u.connection_id = c.id AND u.deleted_at IS NULL) AS people`;

function newToken(): { token: string; prefix: string; hash: string } {
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  return { token, prefix: token.slice(0, SHOWN), hash: sha256Hex(token) };
}

async function view(db: Queryable, id: string): Promise<ConnectionView | undefined> {
  return (await db.query<ConnectionView>(`SELECT ${COLUMNS} FROM scim_connections c WHERE c.id = $1`, [id])).rows[0];
}

/** A new connection and its first token, answered this once. `also` writes in its transaction (a command's record). */
export async function createConnection(
  db: Database,
  name: string,
  also?: AlsoWrite<ConnectionView>,
  adoptExisting = false,
): Promise<{ connection: ConnectionView; token: string }> {
  const t = newToken();
  return db.transaction(async (tx) => {
    const r = await tx.query<{ id: string }>(
      'INSERT INTO scim_connections (name, token_prefix, token_hash, adopt_existing) VALUES ($1, $2, $3, $4) RETURNING id',
      [name.trim(), t.prefix, t.hash, adoptExisting],
    );
    const connection = (await view(tx, r.rows[0]!.id))!;
    await also?.(tx, connection);
    return { connection, token: t.token };
  });
}

export async function listConnections(
  db: Queryable,
  limit: number,
  after: string | undefined,
): Promise<ConnectionView[]> {
  const r = await db.query<ConnectionView>(
    `SELECT ${COLUMNS} FROM scim_connections c WHERE ($1::uuid IS NULL OR c.id > $1) ORDER BY c.id LIMIT $2`,
    [after ?? null, limit],
  );
  return r.rows;
}

export async function findConnection(db: Queryable, id: string): Promise<ConnectionView> {
  const found = await view(db, id);
  if (!found) throw new HttpError(404, 'NOT_FOUND', `no SCIM connection ${id}`);
  return found;
}

/** A new token for the connection: the previous one stops at once (a revoked connection opens again with it). */
export async function rotateToken(
  db: Database,
  id: string,
  also?: AlsoWrite<ConnectionView>,
): Promise<{ connection: ConnectionView; token: string }> {
  const t = newToken();
  return db.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE scim_connections SET token_prefix = $2, token_hash = $3, token_created_at = now(), revoked_at = NULL,
         last_used_at = NULL WHERE id = $1`,
      [id, t.prefix, t.hash],
    );
    if (r.rowCount === 0) throw new HttpError(404, 'NOT_FOUND', `no SCIM connection ${id}`);
    const connection = (await view(tx, id))!;
    await also?.(tx, connection);
    return { connection, token: t.token };
  });
}

/** Changes a connection's name or its adoption of existing people; what is left out stays. */
export async function updateConnection(
  db: Database,
  id: string,
  settings: ConnectionSettings,
  also?: AlsoWrite<ConnectionView>,
): Promise<ConnectionView> {
  return db.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE scim_connections SET name = coalesce($2, name), adopt_existing = coalesce($3, adopt_existing)
        WHERE id = $1`,
      [id, settings.name?.trim() ?? null, settings.adoptExisting ?? null],
    );
    if (r.rowCount === 0) throw new HttpError(404, 'NOT_FOUND', `no SCIM connection ${id}`);
    const connection = (await view(tx, id))!;
    await also?.(tx, connection);
    return connection;
  });
}

/** Revokes the connection's token: its next request is refused. The people it provisioned stay as they are. */
export async function revokeConnection(
  db: Database,
  id: string,
  also?: AlsoWrite<ConnectionView>,
): Promise<ConnectionView> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM scim_connections WHERE id = $1 FOR UPDATE',
      [id],
    );
    if (!r.rows[0]) throw new HttpError(404, 'NOT_FOUND', `no SCIM connection ${id}`);
    if (r.rows[0].revoked) throw new HttpError(409, 'CONFLICT', 'this connection’s token is revoked already');
    await tx.query('UPDATE scim_connections SET revoked_at = now() WHERE id = $1', [id]);
    const connection = (await view(tx, id))!;
    await also?.(tx, connection);
    return connection;
  });
}

/** The connection a presented token opens: live (not revoked) only. Its last use is noted at most once a minute. */
export async function connectionOfToken(
  db: Queryable,
  token: string,
): Promise<{ id: string; name: string; adoptExisting: boolean } | undefined> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
  const r = await db.query<{ id: string; name: string; adopt_existing: boolean; stale: boolean }>(
    `SELECT id, name, adopt_existing, last_used_at IS NULL OR last_used_at < now() - interval '1 minute' AS stale
       FROM scim_connections WHERE token_hash = $1 AND revoked_at IS NULL`,
    [sha256Hex(token)],
  );
  const found = r.rows[0];
  if (!found) return undefined;
  if (found.stale) await db.query('UPDATE scim_connections SET last_used_at = now() WHERE id = $1', [found.id]);
  return { id: found.id, name: found.name, adoptExisting: found.adopt_existing };
}
