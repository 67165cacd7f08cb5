import { importSPKI, exportSPKI } from 'jose';
import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { LastUseWrites } from '../last-use.ts';
import type { KeyAlgorithm } from '../oidc/protocol.ts';

export const API_KEY_PREFIX = 'sk_';
export type CredentialType = 'password' | 'api_key' | 'keypair' | 'webauthn' | 'totp' | 'client_secret';

/** A credential as the API shows it: never its secret_hash. */
export interface CredentialView {
  id: string;
  principal_id: string;
  type: CredentialType;
  identifier: string | null;
  name: string | null;
  public_key: string | null;
  key_algorithm: string | null;
  key_id: string | null;
  scopes: string[];
  active: boolean;
  expires_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_reason: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  created_at: string;
  updated_at: string;
  webauthn_aaguid?: string | null;
  webauthn_sign_count?: number | null;
}

const ts = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, principal_id, type, identifier, name, public_key, key_algorithm, key_id, scopes, active,
  ${ts('expires_at')} AS expires_at, revoked, ${ts('revoked_at')} AS revoked_at, revoked_reason,
  ${ts('last_used_at')} AS last_used_at, last_used_ip, ${ts('created_at')} AS created_at, ${ts('updated_at')} AS updated_at,
  webauthn_aaguid, CASE WHEN type = 'webauthn' THEN webauthn_sign_count::float8 END AS webauthn_sign_count`;

interface Common {
  name?: string | undefined;
  scopes?: string[] | undefined;
  expiresAt?: Date | undefined;
}

function checkExpiry(expiresAt: Date | undefined): void {
  if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now()))
    throw new HttpError(400, 'VALIDATION_ERROR', 'expires_at must be in the future');
}

/** A new API key: 256 random bits after a recognisable prefix, returned once; only its SHA-256 is kept. */
export async function createApiKey(
  db: Database,
  principalId: string,
  input: Common,
): Promise<{ credential: CredentialView; apiKey: string }> {
  checkExpiry(input.expiresAt);
  const apiKey = `${API_KEY_PREFIX}${randomToken(32)}`;
  const r = await db.query<CredentialView>(
    `INSERT INTO credentials (principal_id, type, identifier, secret_hash, name, scopes, expires_at)
     VALUES ($1, 'api_key', $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      principalId,
      apiKey.slice(0, API_KEY_PREFIX.length + 8),
      sha256Hex(apiKey),
      input.name ?? null,
      JSON.stringify(input.scopes ?? []),
      input.expiresAt ?? null,
    ],
  );
  return { credential: r.rows[0]!, apiKey };
}

/** Registers a public key (PEM SubjectPublicKeyInfo) for RS256 or ES256; its key_id is the `kid` assertions name. */
export async function createKeypair(
  db: Queryable,
  principalId: string,
  input: Common & { publicKey: string; algorithm: KeyAlgorithm; keyId?: string | undefined },
): Promise<CredentialView> {
  checkExpiry(input.expiresAt);
  let pem: string;
  try {
    pem = await exportSPKI(await importSPKI(input.publicKey.trim(), input.algorithm, { extractable: true }));
  } catch {
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `public_key must be a PEM public key (-----BEGIN PUBLIC KEY-----) of the kind ${input.algorithm} uses`,
    );
  }
  const keyId = input.keyId ?? `kid_${randomToken(12)}`;
  try {
    const r = await db.query<CredentialView>(
      `INSERT INTO credentials (principal_id, type, identifier, public_key, key_algorithm, key_id, name, scopes, expires_at)
       VALUES ($1, 'keypair', $2, $3, $4, $2, $5, $6, $7) RETURNING ${COLUMNS}`,
      [
        principalId,
        keyId,
        pem,
        input.algorithm,
        input.name ?? null,
        JSON.stringify(input.scopes ?? []),
        input.expiresAt ?? null,
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new HttpError(409, 'CONFLICT', `key_id "${keyId}" is already registered`);
    throw err;
  }
}

/** A principal's credentials in creation order, `limit` of them after the position `after` (a previous row's `position`). */
export async function listCredentials(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(CredentialView & { position: [string, string] })[]> {
  const r = await db.query<CredentialView & { sort_at: string }>(
    `SELECT ${COLUMNS}, created_at::text AS sort_at FROM credentials
      WHERE principal_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
      ORDER BY credentials.created_at, credentials.id LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...c }) => ({ ...c, position: [sort_at, c.id] }));
}

export async function findCredential(
  db: Queryable,
  principalId: string,
  id: string,
): Promise<CredentialView | undefined> {
  return (
    await db.query<CredentialView>(`SELECT ${COLUMNS} FROM credentials WHERE principal_id = $1 AND id = $2`, [
      principalId,
      id,
    ])
  ).rows[0];
}

/** Revokes a live credential with a reason; undefined when there is none, 409 when it is revoked already. */
export async function revokeCredential(
  db: Database,
  principalId: string,
  id: string,
  reason: string,
): Promise<CredentialView | undefined> {
  const existing = await findCredential(db, principalId, id);
  if (!existing) return undefined;
  if (existing.revoked) throw new HttpError(409, 'CONFLICT', 'the credential is revoked already');
  const r = await db.query<CredentialView>(
    `UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = $3, updated_at = now()
      WHERE principal_id = $1 AND id = $2 AND NOT revoked RETURNING ${COLUMNS}`,
    [principalId, id, reason],
  );
  if (!r.rows[0]) throw new HttpError(409, 'CONFLICT', 'the credential is revoked already');
  return r.rows[0];
}

export interface UsableCredential {
  id: string;
  principalId: string;
  scopes: string[];
  publicKey: string | null;
  keyAlgorithm: string | null;
}

/** A credential that may be used now (lookup.ts). */
export const USABLE = 'NOT revoked AND active AND (expires_at IS NULL OR expires_at > now())';

const lastUse = new LastUseWrites();

/** Records a use in last_used_at and last_used_ip: the first use, then at most one a minute (last-use.ts). */
export async function noteCredentialUse(db: Queryable, id: string, ip: string | undefined): Promise<void> {
  if (!lastUse.due(id)) return;
  await db.query('UPDATE credentials SET last_used_at = now(), last_used_ip = $2 WHERE id = $1', [id, ip ?? null]);
}
