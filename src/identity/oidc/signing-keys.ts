import { exportJWK, generateKeyPair, calculateJwkThumbprint, type JWK } from 'jose';
import type { Database, Queryable } from '../../kit/db.ts';
import { openSealedString, seal } from '../../kit/crypto.ts';
import { isoUtc } from '../../kit/sql.ts';

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
    // The order is part of the version: the signing key changes when a staged retirement comes due, not only when
    // a row does.
    version: rows.map((r) => `${r.kid}:${r.active}:${r.retired_at ?? ''}`).join(','),
  };
}

interface KeyRow {
  kid: string;
  private_jwk_sealed: string;
  retired_at: string | null;
  active: boolean;
}

/**
 * The published keys, the signing key first. A key signs while it is not retired (`retired_at` empty or still ahead);
 * of those, the one retiring soonest signs, so a key added by a staged rotation waits, published, until the key before
 * it retires. Then the other active keys, then the retired ones still published, newest first.
 */
function publishedRows(db: Database): Promise<KeyRow[]> {
  return db
    .query<KeyRow>(
      `SELECT kid, private_jwk_sealed, retired_at::text AS retired_at, (retired_at IS NULL OR retired_at > now()) AS active
         FROM signing_keys
        WHERE publish_until IS NULL OR publish_until > now()
        ORDER BY (retired_at IS NULL OR retired_at > now()) DESC,
                 CASE WHEN retired_at > now() THEN retired_at END ASC NULLS LAST, created_at DESC`,
    )
    .then((r) => r.rows);
}

/** A rotation: the new key, the keys it takes over from, and when it signs from. */
export interface Rotation {
  kid: string;
  retired: string[];
  signsFrom: string;
  /** It signs at once instead of after the wait (`immediately`). */
  immediately: boolean;
}

export interface RotationOptions {
  /**
   * IDENTITY_KEY_REFRESH_SECONDS: how often every instance reloads the keys. Required, so no path rotates without
   * the wait by leaving it out.
   */
  refreshSeconds: number;
  /**
   * For a compromised key: the new key signs from now on, each instance switching at its next reload, at the cost of
   * tokens a verifier rejects until it fetches a JWKS with the new key.
   */
  immediately?: boolean;
  /** Written in the rotation's transaction (`platform identity keys rotate`: its change-log record). */
  also?: (tx: Queryable, rotation: Rotation) => Promise<void>;
}

/**
 * Adds a key and retires the signing one, by one rule for every path (the management API, `platform identity keys
 * rotate`). The rotation is staged: the new key is published at once, and the current one keeps signing for
 * `refreshSeconds` (by then every instance has reloaded and serves the new key in its JWKS, so no instance signs with a
 * key another does not publish yet). `immediately` skips the wait, retiring every key still signing or due to
 * (a staged rotation's included) now. A retired key stays published until what it signed has expired, counted from
 * the last reload that may still have signed with it (`refreshSeconds` after its retirement).
 */
export async function rotateSigningKeys(db: Database, secretKey: Buffer, options: RotationOptions): Promise<Rotation> {
  const immediately = options.immediately === true;
  const wait = immediately ? 0 : options.refreshSeconds;
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['identity.signing_keys']);
    // A key retiring later than the new one's start would sign after it: it retires then too.
    const retired = await tx.query<{ kid: string }>(
      `UPDATE signing_keys SET retired_at = now() + make_interval(secs => $1), publish_until = now() + make_interval(secs => $2)
        WHERE retired_at IS NULL OR retired_at > now() + make_interval(secs => $1) RETURNING kid`,
      [wait, wait + options.refreshSeconds + RETIRED_KEY_PUBLISH_SECONDS],
    );
    const kid = await newKey(tx, secretKey);
    const at = await tx.query<{ signs_from: string }>(
      `SELECT ${isoUtc('(now() + make_interval(secs => $1))')} AS signs_from`,
      [wait],
    );
    const rotation = { kid, retired: retired.rows.map((r) => r.kid), signsFrom: at.rows[0]!.signs_from, immediately };
    await options.also?.(tx, rotation);
    return rotation;
  });
}
