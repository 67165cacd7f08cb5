import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The key of erasures' user digests, derived from PLATFORM_SECRET_KEY for this one use: a digest made with it says
 * nothing to whoever holds the database but not the key (a plain SHA-256 of an email is undone by hashing a list of
 * emails). Kept as long as the secret key is kept; a new secret key leaves old digests unmatched (docs/decisions.md).
 */
export function erasureDigestKey(secretKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'platform ingest erasure user digest', 32));
}

/** The digest an erasure keeps of its user: HMAC-SHA-256 of the project and the id, so one id differs by project. */
export function userDigest(key: Buffer, projectId: string, userId: string): string {
  return createHmac('sha256', key).update(`${projectId}\0${userId}`).digest('base64url');
}
