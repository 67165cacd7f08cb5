import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { CredentialLookup } from './lookup.ts';
import type { UsableCredential } from './store.ts';
import { CLOCK_SKEW_SECONDS, MAX_ASSERTION_SECONDS } from './grants.ts';

/**
 * The fast route's check of an RFC 7523 assertion (issue 33). grants.ts's verifyAssertion (jose) stays the provider's,
 * and the judge of every assertion this one does not take: this one only accepts, never refuses with a reason. It
 * accepts what jose's jwtVerify with verifyAssertion's options accepts, or less — a plain compact JWS of a header with
 * a string `alg` equal to the key's and a `kid`, no `crit` or `b64`; the key's type fitting its algorithm; iss = sub =
 * the key's principal, aud the issuer or the token endpoint, `exp` (a number, not past with the skew allowed, not
 * further than the longest lifetime), `nbf` and `iat` numbers when present, `nbf` reached, a `jti` — and answers
 * undefined for anything else, which sends the request to the provider, whose answer it then is.
 *
 * Why: jose 6 verifies through WebCrypto, whose ECDSA check ran on the event loop and, with jose's decoding and claim
 * checks around it, took ~30% of a key-pair token's main-thread samples. Here the signature is checked by node:crypto
 * with a callback, on libuv's thread pool: the event loop, which is what limits the route, does the rest meanwhile.
 */
export interface FastAssertionDeps {
  credentials: CredentialLookup;
  issuer: string;
  tokenEndpoint: string;
}

export interface VerifiedAssertion {
  credential: UsableCredential;
  exp: number;
  jti: string;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

export async function verifyAssertionFast(
  deps: FastAssertionDeps,
  assertion: string,
): Promise<VerifiedAssertion | undefined> {
  const first = assertion.indexOf('.');
  const second = assertion.indexOf('.', first + 1);
  if (first <= 0 || second <= first + 1 || assertion.indexOf('.', second + 1) !== -1) return undefined;
  const signed = assertion.slice(0, second);
  const parts = [assertion.slice(0, first), assertion.slice(first + 1, second), assertion.slice(second + 1)];
  // A length of 4n + 1 is no base64url: jose refuses it, Buffer.from would drop the last character.
  if (!parts.every((p) => B64URL.test(p) && p.length % 4 !== 1)) return undefined;
  const header = jsonObject(parts[0]!);
  if (!header || 'crit' in header || 'b64' in header) return undefined;
  const { kid, alg } = header;
  if (typeof kid !== 'string' || !kid || typeof alg !== 'string') return undefined;
  const credential = await deps.credentials.keypair(kid);
  if (!credential?.publicKey || credential.keyAlgorithm !== alg) return undefined;
  const key = keyFor(credential.publicKey, alg);
  if (!key) return undefined;
  const payload = jsonObject(parts[1]!);
  if (!payload || !claimsAccepted(deps, credential.principalId, payload)) return undefined;
  const valid = await new Promise<boolean>((resolve) => {
    verify(
      'sha256',
      Buffer.from(signed, 'latin1'),
      alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key,
      Buffer.from(parts[2]!, 'base64url'),
      (err, ok) => resolve(!err && ok),
    );
  });
  return valid ? { credential, exp: payload.exp as number, jti: payload.jti as string } : undefined;
}

function jsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function claimsAccepted(deps: FastAssertionDeps, principalId: string, payload: Record<string, unknown>): boolean {
  const { iss, sub, aud, exp, nbf, iat, jti } = payload;
  if (iss !== principalId || sub !== principalId) return false;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.some((a) => a === deps.issuer || a === deps.tokenEndpoint)) return false;
  if (typeof jti !== 'string' || !jti || jti.length > 200) return false;
  const now = Math.floor(Date.now() / 1000);
  if (typeof exp !== 'number' || exp <= now - CLOCK_SKEW_SECONDS) return false;
  if (exp - Date.now() / 1000 > MAX_ASSERTION_SECONDS + CLOCK_SKEW_SECONDS) return false;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + CLOCK_SKEW_SECONDS)) return false;
  if (iat !== undefined && typeof iat !== 'number') return false;
  return true;
}

/** Parsed keys by algorithm and PEM (a registered key never changes); bounded as public-keys.ts's. */
const keys = new Map<string, KeyObject | null>();
const MAX_KEYS = 10_000;

/** The key when its type fits the algorithm as jose requires (P-256 for ES256, RSA of 2048 bits or more for RS256). */
function keyFor(pem: string, alg: string): KeyObject | undefined {
  const id = `${alg}\n${pem}`;
  let key = keys.get(id);
  if (key === undefined) {
    try {
      const parsed = createPublicKey(pem);
      const details = parsed.asymmetricKeyDetails;
      const fits =
        alg === 'ES256'
          ? parsed.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1'
          : alg === 'RS256' && parsed.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= 2048;
      key = fits ? parsed : null;
    } catch {
      key = null;
    }
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(id, key);
  }
  return key ?? undefined;
}
