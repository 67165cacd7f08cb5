import { createHmac, timingSafeEqual } from 'node:crypto';
import { isObject, parseJsonBody, StandIn, type Answer, type Received } from './stand-in.ts';

/** How far a signature's `t` may be from the receiver's clock (docs/ingest.md, "Webhook signatures": 5 minutes). */
const TOLERANCE_SECONDS = 300;
const SIGNATURE = /^t=(\d+),v1=([0-9a-f]{64})$/;

/**
 * Checks `X-Ingest-Signature` as docs/ingest.md tells a receiver to, written from the docs alone and not from the
 * product's code (a receiver of ours uses none of it): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * the HMAC over the raw body bytes as received, compared in constant time, `t` within 5 minutes of the clock.
 */
export function documentedSignatureHolds(
  secret: string,
  header: string | undefined,
  rawBody: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const match = SIGNATURE.exec(header ?? '');
  if (!match) return false;
  const [, t, v1] = match as unknown as [string, string, string];
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

/**
 * A receiver of webhook destinations as a customer would write one: checks the signature over the raw body
 * and its timestamp (401 otherwise), then records every event, counting repeats (at-least-once delivery).
 */
export class WebhookReceiver extends StandIn {
  /** How many times each event_id arrived. */
  readonly arrivals = new Map<string, number>();
  readonly events = new Map<string, Record<string, unknown>>();
  badSignatures = 0;
  protected readonly maxBodyBytes = 20 * 1024 * 1024;
  secret = '';

  protected tooLarge(): Answer {
    return { status: 413, body: { error: 'too large' } };
  }

  protected answer(request: Received): Answer {
    const header = request.headers['x-ingest-signature'];
    if (!documentedSignatureHolds(this.secret, typeof header === 'string' ? header : undefined, request.body)) {
      this.badSignatures++;
      return { status: 401, body: { error: 'bad signature' } };
    }
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value) || !Array.isArray(parsed.value.events))
      return { status: 400, body: { error: 'expected {events:[...]}' } };
    for (const e of parsed.value.events as Record<string, unknown>[]) {
      const id = String(e.event_id);
      this.arrivals.set(id, (this.arrivals.get(id) ?? 0) + 1);
      this.events.set(id, e);
    }
    return { status: 204 };
  }
}

export async function startWebhookReceiver(secret = ''): Promise<WebhookReceiver> {
  const r = new WebhookReceiver();
  r.secret = secret;
  return r.start();
}
