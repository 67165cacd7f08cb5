import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Signatures per the Standard Webhooks specification (standardwebhooks.com): the secret is `whsec_` + base64 of
 * its bytes; the signed content is `${id}.${timestamp}.${body}`; the header carries `v1,` + base64 HMAC-SHA256,
 * several space-separated while a secret is being rotated.
 */
const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(PREFIX)) return false;
  const bytes = Buffer.from(value.slice(PREFIX.length), 'base64');
  return bytes.length >= 24 && bytes.length <= 64;
}

export interface SignedMessage {
  id: string;
  /** Seconds since the epoch. */
  timestamp: number;
  body: string;
}

export function signature(secret: string, message: SignedMessage): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers a receiver verifies; `secrets` signs with each (the old and the new during a rotation). */
export function webhookHeaders(secrets: readonly string[], message: SignedMessage): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': secrets.map((s) => signature(s, message)).join(' '),
  };
}

export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** A receiver's check, as the specification describes it: any listed v1 signature matches, timestamp within tolerance. */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const listed = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !listed) return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(secret, { id, timestamp, body }));
  return listed.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
