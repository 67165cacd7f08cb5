import { exportJWK, generateKeyPair, calculateJwkThumbprint, type JWK } from 'jose';
import type { Database, Queryable } from '../../kit/db.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';

const CONTEXT = 'identity.signing_key';

export interface SigningKeys {
  /** Private JWKs, the signing key first, then retired keys still published. */
  privateKeys: JWK[];
  /** Changes whenever the set changes, so a running server knows to rebuild its provider. */
  version: string;
}

/** A retired key stays published this long past its retirement: the longest an ID token it signed lives, plus clock skew. */
export const RETIRED_KEY_PUBLISH_SECONDS = 3600 + 300;

async function newKey(db: Queryable, secretKey: Buffer): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  const full: JWK = { ...jwk, kid, alg: 'RS256', use: 'sig' };
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = full;
  await db.query('INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk_sealed) VALUES ($1, $2, $3, $4)', [
    kid,
    'RS256',
    JSON.stringify(publicJwk),
    seal(secretKey, JSON.stringify(full), `${CONTEXT}.${kid}`),
  ]);
  return kid;
}

/** Loads the published keys, generating the first one on first start (under a lock, so parallel starts make one). */
export async function loadSigningKeys(db: Database, secretKey: Buffer): Promise<SigningKeys> {
  let rows = await publishedRows(db);
  if (!rows.some((r) => r.retired_at === null)) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['identity.signing_keys']);
      const again = await tx.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM signing_keys WHERE retired_at IS NULL',
      );
      if (again.rows[0]!.n === 0) await newKey(tx, secretKey);
    });
    rows = await publishedRows(db);
  }
  return {
    privateKeys: rows.map(
      (r) => JSON.parse(openSealedString(secretKey, r.private_jwk_sealed, `${CONTEXT}.${r.kid}`)) as JWK,
    ),
    version: rows.map((r) => `${r.kid}:${r.retired_at ?? ''}`).join(','),
  };
}

interface KeyRow {
  kid: string;
  private_jwk_sealed: string;
  retired_at: string | null;
}

function publishedRows(db: Database): Promise<KeyRow[]> {
  return db
    .query<KeyRow>(
      `SELECT kid, private_jwk_sealed, retired_at::text AS retired_at FROM signing_keys
        WHERE publish_until IS NULL OR publish_until > now()
        ORDER BY (retired_at IS NULL) DESC, created_at DESC`,
    )
    .then((r) => r.rows);
}

/** The new key signs from now on; the previous ones stay in the JWKS until what they signed has expired. */
export async function rotateSigningKeys(db: Database, secretKey: Buffer): Promise<{ kid: string; retired: string[] }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['identity.signing_keys']);
    const retired = await tx.query<{ kid: string }>(
      `UPDATE signing_keys SET retired_at = now(), publish_until = now() + make_interval(secs => $1)
        WHERE retired_at IS NULL RETURNING kid`,
      [RETIRED_KEY_PUBLISH_SECONDS],
    );
    const kid = await newKey(tx, secretKey);
    return { kid, retired: retired.rows.map((r) => r.kid) };
  });
}
