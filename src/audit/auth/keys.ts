import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import type { Queryable } from '../../kit/db.ts';

/** Keys look like `ak_<43 characters>`, so a leaked one is recognisable (and a scanner rule can match it). */
export const KEY_PREFIX = 'ak_';

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS =
  'id, name, prefix, to_char(created_at AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS"Z"\') AS created_at, to_char(revoked_at AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS"Z"\') AS revoked_at';

/** A new key: the key itself is returned once and only its SHA-256 is stored (256 random bits need no slow hash). */
export async function createApiKey(db: Queryable, name: string): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = KEY_PREFIX + randomToken(32);
  const { rows } = await db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, name, key_hash, prefix) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [`key_${randomToken(9)}`, name, sha256Hex(key), key.slice(0, KEY_PREFIX.length + 8)],
  );
  return { key, record: rows[0]! };
}

export async function listApiKeys(db: Queryable): Promise<ApiKeyRecord[]> {
  return (await db.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`)).rows;
}

export async function revokeApiKey(db: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0];
}

/** The id of the active key with this value, or null. */
export async function findActiveKey(db: Queryable, key: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [sha256Hex(key)],
  );
  return rows[0]?.id ?? null;
}
