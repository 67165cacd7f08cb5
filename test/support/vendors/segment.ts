import { isRfc3339, basicAuth, isObject, parseJsonBody, StandIn, type Answer, type Received } from './stand-in.ts';

/** Segment's KB are 1,000 bytes. */
const MAX_EVENT_BYTES = 32_000;

/**
 * Segment's HTTP Tracking API `POST /v1/batch`: write key by HTTP Basic (user name) or `writeKey` in the body,
 * `Content-Type: application/json`, 500 KB per batch and 32 KB per event (400 beyond either, and for invalid
 * JSON); Segment counts a KB as 1,000 bytes. Everything else is answered 200 — events with an unknown write key,
 * no userId/anonymousId or a `timestamp` that is not an ISO 8601 date-time are dropped silently, as Segment does.
 * Deduplicated on messageId.
 */
export class SegmentStandIn extends StandIn {
  readonly events = new Map<string, Record<string, unknown>>();
  /** Events answered 200 but not kept (unknown write key, missing identity), as the real API does silently. */
  dropped = 0;
  protected readonly maxBodyBytes = 500_000;
  private readonly writeKey: string;

  constructor(writeKey: string) {
    super();
    this.writeKey = writeKey;
  }

  protected tooLarge(): Answer {
    return { status: 400, body: { error: 'Request Entity Too Large: batch is larger than 500KB' } };
  }

  protected answer(request: Received): Answer {
    if (request.method !== 'POST' || request.url.pathname !== '/v1/batch')
      return { status: 404, body: { error: 'Not Found' } };
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json'))
      return { status: 400, body: { error: 'Content-Type must be application/json' } };
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value) || !Array.isArray(parsed.value.batch))
      return { status: 400, body: { error: 'Invalid JSON' } };
    const body = parsed.value;
    const batch = body.batch as unknown[];
    for (const e of batch)
      if (Buffer.byteLength(JSON.stringify(e)) > MAX_EVENT_BYTES)
        return { status: 400, body: { error: 'Request Entity Too Large: an event is larger than 32KB' } };
    const key = basicAuth(request.headers)?.user ?? body.writeKey;
    for (const e of batch) {
      if (
        key !== this.writeKey ||
        !isObject(e) ||
        (!e.userId && !e.anonymousId) ||
        (e.type === 'track' && !e.event) ||
        (e.timestamp !== undefined && !isRfc3339(e.timestamp))
      ) {
        this.dropped++;
        continue;
      }
      this.events.set(typeof e.messageId === 'string' ? e.messageId : crypto.randomUUID(), e);
    }
    return { status: 200, body: { success: true } };
  }
}

export async function startSegment(writeKey = 'segment_write_key_test'): Promise<SegmentStandIn> {
  return new SegmentStandIn(writeKey).start();
}
