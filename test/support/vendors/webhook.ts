import { verifyWebhookSignature, SIGNATURE_HEADER } from '../../../src/ingest/forwarding/vendors/webhook.ts';
import { isObject, parseJsonBody, StandIn, type Answer, type Received } from './stand-in.ts';

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
    const raw = request.body.toString('utf8');
    const header = request.headers[SIGNATURE_HEADER];
    if (!verifyWebhookSignature(this.secret, typeof header === 'string' ? header : undefined, raw)) {
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
