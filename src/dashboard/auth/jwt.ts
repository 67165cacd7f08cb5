import { hkdfSync } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import { isRole, type Role } from './roles.ts';

/** The `iss` of every access token: a constant naming the service (Document 1). */
export const ACCESS_TOKEN_ISSUER = 'dashboard';

/** Document 1's access token claims, exactly. */
export interface AccessClaims {
  iss: string;
  sub: string;
  exp: number;
  iat: number;
  uid: number;
  email: string;
  role: Role;
  tid: number;
}

export interface JwtKeys {
  key: Uint8Array;
}

/**
 * The HS256 signing secret: the configured one (at least 32 bytes, checked when the configuration is
 * read), or outside production one derived from the platform secret key so a fresh `npm start` works.
 */
export function jwtKeys(configured: string | undefined, platformKey: Buffer): JwtKeys {
  if (configured !== undefined) return { key: new Uint8Array(Buffer.from(configured, 'utf8')) };
  return { key: new Uint8Array(hkdfSync('sha256', platformKey, Buffer.alloc(0), 'dashboard access tokens', 32)) };
}

export async function signAccessToken(
  keys: JwtKeys,
  user: { id: number; email: string; role: Role; tenantId: number },
  ttlSeconds: number,
  now = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({ uid: user.id, email: user.email, role: user.role, tid: user.tenantId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setSubject(String(user.id))
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(keys.key);
}

/**
 * Tokens whose signature and claims were checked, by keys: a token is verified once per process, then recognised
 * until it expires (the revocation, user and role checks are the database's, on every request: authenticate.ts).
 * The signature check is an asynchronous WebCrypto job per call, which a client sending its token with every
 * request would otherwise pay each time. Bounded: past MAX_VERIFIED the oldest go first.
 */
const verified = new WeakMap<JwtKeys, Map<string, AccessClaims>>();
const MAX_VERIFIED = 10_000;

/** The token's claims when its signature, issuer, algorithm and lifetime hold and every claim has its type; otherwise undefined. */
export async function verifyAccessToken(keys: JwtKeys, token: string): Promise<AccessClaims | undefined> {
  let known = verified.get(keys);
  if (!known) {
    known = new Map();
    verified.set(keys, known);
  }
  const claims = known.get(token);
  if (claims) {
    if (claims.exp > Date.now() / 1000) return claims;
    known.delete(token);
    return undefined;
  }
  const checked = await verifyOnce(keys, token);
  if (checked) {
    if (known.size >= MAX_VERIFIED) known.delete(known.keys().next().value!);
    known.set(token, Object.freeze(checked));
  }
  return checked;
}

async function verifyOnce(keys: JwtKeys, token: string): Promise<AccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.key, {
      issuer: ACCESS_TOKEN_ISSUER,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    const { sub, exp, iat, uid, email, role, tid } = payload as Record<string, unknown>;
    if (typeof uid !== 'number' || !Number.isSafeInteger(uid) || sub !== String(uid)) return undefined;
    if (typeof tid !== 'number' || !Number.isSafeInteger(tid)) return undefined;
    if (typeof email !== 'string' || typeof role !== 'string' || !isRole(role)) return undefined;
    return { iss: ACCESS_TOKEN_ISSUER, sub, exp: exp as number, iat: iat as number, uid, email, role, tid };
  } catch (err) {
    if (err instanceof errors.JOSEError) return undefined;
    throw err;
  }
}
