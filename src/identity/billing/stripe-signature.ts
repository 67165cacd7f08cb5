import { createHmac } from 'node:crypto';
import { safeEqual } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';

/** Stripe's default tolerance between the signed timestamp and now, in seconds. */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * Checks a webhook as Stripe documents it ("Verify manually"): the header `Stripe-Signature:
 * t=<unix seconds>,v1=<hex>[,v1=…][,v0=…]`; the signed payload is `<t>.<raw body>`, its HMAC-SHA256
 * with the endpoint's secret must equal one of the `v1` values (several during a secret roll; other
 * schemes are ignored), compared in constant time. A timestamp more than `tolerance` seconds old is
 * refused, as Stripe's libraries do, and so is one more than `tolerance` seconds ahead (a clock that
 * far off is not ours to trust). Every refusal is 400, Stripe's documented answer; the message never
 * carries the expected signature or the secret.
 */
export function verifyStripeSignature(
  payload: Buffer,
  header: string | undefined,
  secrets: readonly string[],
  now = Date.now(),
  tolerance = STRIPE_TOLERANCE_SECONDS,
): void {
  const refuse = (why: string): never => {
    throw new HttpError(400, 'VALIDATION_ERROR', `Stripe-Signature: ${why}`);
  };
  if (!header) refuse('the header is missing');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header!.split(',')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') timestamp = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || Number.isNaN(timestamp)) refuse('no timestamp (t=) in the header');
  if (signatures.length === 0) refuse('no v1 signature in the header');
  const age = Math.floor(now / 1000) - timestamp!;
  if (age > tolerance) refuse(`the timestamp is ${age} s old, beyond the ${tolerance} s tolerance`);
  if (age < -tolerance) refuse(`the timestamp is ${-age} s in the future, beyond the ${tolerance} s tolerance`);
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
    if (signatures.some((s) => safeEqual(s, expected))) return;
  }
  refuse('no signature matches the payload');
}
