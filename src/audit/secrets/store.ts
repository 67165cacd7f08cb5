import type { Database, Queryable } from '../../kit/db.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { isoUtc } from '../../kit/sql.ts';
import { AuditFailedError } from '../engine/audit-errors.ts';

/** A stored secret as endpoints answer it: its name and dates, never its value. */
export interface SecretRecord {
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** Secrets one credential may store. */
export const MAX_SECRETS = 100;

/** A value sealed for one owner and name cannot be moved to another row and still open. */
const sealContext = (owner: string, name: string) => `audit-secret\0${owner}\0${name}`;

const FIELDS = `name, ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

interface Row {
  name: string;
  created_at: string;
  updated_at: string;
}

const toRecord = (row: Row): SecretRecord => ({ name: row.name, createdAt: row.created_at, updatedAt: row.updated_at });

export class TooManySecretsError extends Error {}

/** Stores or replaces the owner's secret `name`, sealed; answers whether it was new. */
export async function putSecret(
  db: Database,
  key: Buffer,
  owner: string,
  name: string,
  value: string,
): Promise<{ record: SecretRecord; created: boolean }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`audit-secrets:${owner}`]);
    const { rows: count } = await tx.query<{ n: number; has: boolean }>(
      'SELECT count(*)::int AS n, bool_or(name = $2) AS has FROM secrets WHERE owner = $1',
      [owner, name],
    );
    if (!count[0]!.has && count[0]!.n >= MAX_SECRETS)
      throw new TooManySecretsError(
        `this credential already stores ${MAX_SECRETS} secrets, the most it may; delete one first (DELETE /api/v1/secrets/{name})`,
      );
    const { rows } = await tx.query<Row & { created: boolean }>(
      `INSERT INTO secrets (owner, name, sealed) VALUES ($1, $2, $3)
       ON CONFLICT (owner, name) DO UPDATE SET sealed = excluded.sealed, updated_at = now()
       RETURNING ${FIELDS}, (xmax = 0) AS created`,
      [owner, name, seal(key, value, sealContext(owner, name))],
    );
    return { record: toRecord(rows[0]!), created: rows[0]!.created };
  });
}

export async function listSecrets(db: Queryable, owner: string): Promise<SecretRecord[]> {
  const { rows } = await db.query<Row>(`SELECT ${FIELDS} FROM secrets WHERE owner = $1 ORDER BY name`, [owner]);
  return rows.map(toRecord);
}

export async function deleteSecret(db: Queryable, owner: string, name: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM secrets WHERE owner = $1 AND name = $2', [owner, name]);
  return rowCount === 1;
}

/** The values of the owner's secrets among `names`, opened; names the owner has not stored are absent. */
export async function openSecrets(
  db: Queryable,
  key: Buffer,
  owner: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  if (names.length === 0) return values;
  const { rows } = await db.query<{ name: string; sealed: string }>(
    'SELECT name, sealed FROM secrets WHERE owner = $1 AND name = ANY($2::text[])',
    [owner, [...names]],
  );
  for (const row of rows) {
    try {
      values.set(row.name, openSealedString(key, row.sealed, sealContext(owner, row.name)));
    } catch {
      // Sealed under another key: retrying cannot open it, and the caller must know which secret to store again.
      throw new AuditFailedError(
        `the secret "${row.name}" cannot be opened: it was stored under another PLATFORM_SECRET_KEY; store it again (PUT /api/v1/secrets/${row.name})`,
        false,
      );
    }
  }
  return values;
}

/** Which of `names` the owner has not stored. */
export async function missingSecrets(db: Queryable, owner: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await db.query<{ name: string }>(
    'SELECT name FROM secrets WHERE owner = $1 AND name = ANY($2::text[])',
    [owner, [...names]],
  );
  const stored = new Set(rows.map((r) => r.name));
  return names.filter((n) => !stored.has(n));
}
