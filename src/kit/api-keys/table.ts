import { randomToken, sha256Hex } from '../crypto.ts';
import type { Queryable } from '../db.ts';
import { isBlank } from '../names.ts';
import { positioned, type PageRequest, type Positioned } from '../paging.ts';
import { isoUtc } from '../sql.ts';

/** A key as it is listed: never the key, only its first characters (`prefix`) to recognise it by. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** Who a live key speaks for: the key's id, and what its owner column names (ingest: the project), if it has one. */
export interface ApiKeyHolder {
  keyId: string;
  owner: string | null;
}

/** A name the key cannot be given as it is; the message names the field. */
export class ApiKeyInputError extends Error {}

/**
 * Told the hash of a key just revoked, so every cached lookup of it is dropped: the service's key cache (and
 * through its bus every instance), or from a command, the running instances over Redis.
 */
export type KeyRevoked = (keyHash: string) => Promise<void>;

export interface ApiKeyTableOptions {
  /** Starts every key (`ak_`, `isk_`): a leaked key is recognisable, and a scanner rule can match it. */
  prefix: string;
  /**
   * The column naming what each key belongs to, and the table whose `id` it references (ingest: project_id, projects).
   * Without a table the owner is a free value a key may lack (audit: the person who made it in the console, none for a
   * key made on the command line), and `create` and `list` take one or none.
   */
  owner?: { column: string; table?: string };
}

export interface ApiKeyTable<R extends ApiKeyRecord> {
  readonly prefix: string;
  /** Given, what keys belong to: `create` and `list` then take an owner. */
  readonly owner: ApiKeyTableOptions['owner'];
  /** A new key, returned in clear this once; undefined when the owner given does not exist. */
  create(
    db: Queryable,
    input: { name?: string | undefined; owner?: string | undefined },
  ): Promise<{ key: string; record: R } | undefined>;
  /** Keys in creation order (an owner's only, when given); every one without `page`. */
  list(db: Queryable, query?: { owner?: string | undefined; page?: PageRequest }): Promise<Positioned<R>[]>;
  /**
   * Revokes a key (idempotently: revoking twice keeps the first time) and tells `revoked`, awaited, before
   * answering. Undefined when no such key exists (within `owner`, when given).
   */
  revoke(
    db: Queryable,
    id: string,
    options: { owner?: string | undefined; revoked: KeyRevoked },
  ): Promise<R | undefined>;
  /** The holder of the live (not revoked) key with this SHA-256. */
  holderOf(db: Queryable, keyHash: string): Promise<ApiKeyHolder | undefined>;
  ownerExists(db: Queryable, owner: string): Promise<boolean>;
}

const MAX_NAME = 200;

/** A key's name is optional; given, it is shown in every list, so it must show as something and fit a line. */
function checkName(name: string | undefined): string {
  if (name === undefined) return '';
  if (isBlank(name)) throw new ApiKeyInputError('name: must not be blank (leave it out for a key without a name)');
  if (name.length > MAX_NAME || name.includes('\0'))
    throw new ApiKeyInputError(`name: must be at most ${MAX_NAME} characters, without NUL`);
  return name;
}

/**
 * A service's API keys, kept in its own `api_keys` table (id, [owner,] name, key_hash, prefix, created_at,
 * revoked_at). A key is the prefix and 256 random bits; only its SHA-256 is stored (256 random bits need no slow
 * hash), with its first characters for recognition. The table's names are the code's own constants, never input.
 */
export function apiKeyTable<R extends ApiKeyRecord = ApiKeyRecord>(options: ApiKeyTableOptions): ApiKeyTable<R> {
  const { prefix, owner } = options;
  const ownerColumn = owner ? `${owner.column}, ` : '';
  const columns = `id, ${ownerColumn}name, prefix, ${isoUtc('created_at')} AS created_at, ${isoUtc('revoked_at')} AS revoked_at`;
  const withOwner = (value: string | undefined): string | null => {
    if (owner?.table && value === undefined) throw new Error(`the keys of this table belong to a ${owner.column}`);
    return owner ? (value ?? null) : null;
  };

  return {
    prefix,
    owner,
    async create(db, input) {
      const name = checkName(input.name);
      const key = prefix + randomToken(32);
      const values = [`key_${randomToken(9)}`, name, sha256Hex(key), key.slice(0, prefix.length + 8)];
      const { rows } = owner?.table
        ? await db.query<R>(
            `INSERT INTO api_keys (id, ${owner.column}, name, key_hash, prefix)
             SELECT $1, o.id, $2, $3, $4 FROM ${owner.table} o WHERE o.id = $5
             RETURNING ${columns}`,
            [...values, withOwner(input.owner)],
          )
        : owner
          ? await db.query<R>(
              `INSERT INTO api_keys (id, name, key_hash, prefix, ${owner.column}) VALUES ($1, $2, $3, $4, $5) RETURNING ${columns}`,
              [...values, withOwner(input.owner)],
            )
          : await db.query<R>(
              `INSERT INTO api_keys (id, name, key_hash, prefix) VALUES ($1, $2, $3, $4) RETURNING ${columns}`,
              values,
            );
      return rows[0] && { key, record: rows[0] };
    },

    async list(db, query = {}) {
      const { rows } = await db.query<R & { sort_at: string }>(
        `SELECT ${columns}, created_at::text AS sort_at FROM api_keys
          WHERE ($1::text IS NULL${owner ? ` OR ${owner.column} = $1` : ''})
            AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::text))
          ORDER BY api_keys.created_at, api_keys.id LIMIT $4`,
        [
          owner ? withOwner(query.owner) : null,
          query.page?.after?.[0] ?? null,
          query.page?.after?.[1] ?? null,
          query.page?.limit ?? null,
        ],
      );
      return positioned(rows);
    },

    async revoke(db, id, { owner: ownerId, revoked }) {
      const { rows } = await db.query<R & { key_hash: string }>(
        `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
          WHERE id = $1${owner ? ` AND ($2::text IS NULL OR ${owner.column} = $2)` : ''}
          RETURNING ${columns}, key_hash`,
        owner ? [id, ownerId ?? null] : [id],
      );
      if (!rows[0]) return undefined;
      const { key_hash, ...record } = rows[0];
      await revoked(key_hash);
      return record as unknown as R;
    },

    async holderOf(db, keyHash) {
      const { rows } = await db.query<{ id: string; owner: string | null }>(
        `SELECT id, ${owner ? owner.column : 'NULL'} AS owner FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
        [keyHash],
      );
      return rows[0] && { keyId: rows[0].id, owner: rows[0].owner };
    },

    async ownerExists(db, ownerId) {
      if (!owner?.table) throw new Error('the keys of this table belong to no owner');
      return (await db.query(`SELECT 1 FROM ${owner.table} WHERE id = $1`, [ownerId])).rows.length > 0;
    },
  };
}
