import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hash,
  randomBytes,
  scrypt,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

export function sha256Hex(value: string | Buffer): string {
  // The one-shot form skips the Hash object: about half the cost on the short values hashed per request.
  return hash('sha256', value, 'hex');
}

/** Compares two strings in time that depends only on their length, never on where they differ. */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = typeof a === 'string' ? Buffer.from(a) : a;
  const y = typeof b === 'string' ? Buffer.from(b) : b;
  // Hashing first makes the comparison length-independent too, so length is not leaked either.
  return (
    timingSafeEqual(createHash('sha256').update(x).digest(), createHash('sha256').update(y).digest()) &&
    x.length === y.length
  );
}

/** A URL-safe random token carrying `bytes` bytes of entropy (32 bytes = 256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

// scrypt cost: N=2^15, r=8, p=1 takes ~50-100 ms and 32 MiB, OWASP's recommended floor for scrypt.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, keylen: 32 } as const;

function scryptAsync(secret: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize('NFKC'), salt, keylen, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Slow hash for passwords and secrets: `scrypt$N$r$p$salt$hash`, parameters kept so they can be raised later. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every(Number.isSafeInteger) || N > 1 << 20) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await scryptAsync(secret, Buffer.from(parts[4]!, 'base64url'), N, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

/** Whether a stored hash was made with weaker parameters than today's and should be redone at next sign-in. */
export function needsRehash(stored: string): boolean {
  const [, N, r, p] = stored.split('$').map(Number);
  return N !== SCRYPT.N || r !== SCRYPT.r || p !== SCRYPT.p;
}

const SEALED_VERSION = 'v1';

// Node re-validates a raw Buffer key on every cipher it makes; a KeyObject made once per key halves the
// cost of sealing and opening, which the identity service does on every token it issues or reads.
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(key: Buffer): KeyObject {
  let k = keyObjects.get(key);
  if (!k) {
    k = createSecretKey(key);
    keyObjects.set(key, k);
  }
  return k;
}

/**
 * AES-256-GCM for secrets kept at rest (data source URLs, vendor credentials, signing keys).
 * Output: `v1.<iv>.<tag>.<ciphertext>` in base64url. `context` is bound as associated data so a value
 * sealed for one record cannot be replayed into another.
 */
export function seal(key: Buffer, plaintext: string | Buffer, context = ''): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), iv);
  cipher.setAAD(Buffer.from(context));
  // GCM is a stream mode: final() adds no bytes, it only computes the tag.
  const data = cipher.update(plaintext);
  cipher.final();
  return `${SEALED_VERSION}.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
}

// Each IV is 96 random bits used once, as before; they are drawn from a pool filled 12 KiB at a time because a
// randomBytes call per seal cost as much as the encryption itself (the identity service seals every token it issues).
const IV_BYTES = 12;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_BYTES * 1024);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

export function openSealed(key: Buffer, sealed: string, context = ''): Buffer {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== SEALED_VERSION || !iv || !tag || data === undefined) throw new Error('sealed value is malformed');
  const decipher = createDecipheriv('aes-256-gcm', keyObject(key), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plaintext = decipher.update(Buffer.from(data, 'base64url'));
  // Throws when the tag does not match; adds no bytes (GCM is a stream mode).
  decipher.final();
  return plaintext;
}

export function openSealedString(key: Buffer, sealed: string, context = ''): string {
  return openSealed(key, sealed, context).toString('utf8');
}
