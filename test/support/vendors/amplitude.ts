import { isObject, parseJsonBody, StandIn, type Answer, type Received } from './stand-in.ts';

const MAX_EVENTS = 2000;

/**
 * Amplitude's HTTP V2 API `POST /2/httpapi`: `{api_key, events, options?}`, `Content-Type: application/json`,
 * under 1 MB and 2,000 events (413 beyond). Each event needs `event_type` and a `user_id` or `device_id` of at
 * least `options.min_id_length` (default 5) characters; `time` must be an integer of milliseconds. A request with
 * any invalid event is refused whole with 400 `events_with_invalid_fields` / `events_with_missing_fields` (index
 * lists), nothing ingested. Deduplicated on `insert_id`.
 */
export class AmplitudeStandIn extends StandIn {
  readonly events = new Map<string, Record<string, unknown>>();
  protected readonly maxBodyBytes = 1_000_000;
  private readonly apiKey: string;

  constructor(apiKey: string) {
    super();
    this.apiKey = apiKey;
  }

  protected tooLarge(): Answer {
    return { status: 413, body: { code: 413, error: 'Payload too large' } };
  }

  protected answer(request: Received): Answer {
    if (request.method !== 'POST' || request.url.pathname !== '/2/httpapi')
      return { status: 404, body: { code: 404, error: 'Not found' } };
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json'))
      return { status: 400, body: { code: 400, error: 'Invalid request: Content-Type must be application/json' } };
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value))
      return { status: 400, body: { code: 400, error: 'Invalid request: malformed JSON body' } };
    const body = parsed.value;
    if (typeof body.api_key !== 'string' || body.api_key === '')
      return { status: 400, body: { code: 400, error: 'Request missing required field', missing_field: 'api_key' } };
    if (body.api_key !== this.apiKey)
      return { status: 400, body: { code: 400, error: `Invalid API key: ${body.api_key}` } };
    if (!Array.isArray(body.events))
      return { status: 400, body: { code: 400, error: 'Request missing required field', missing_field: 'events' } };
    if (body.events.length > MAX_EVENTS) return this.tooLarge();
    const minIdLength =
      isObject(body.options) && typeof body.options.min_id_length === 'number' ? body.options.min_id_length : 5;
    const invalid: Record<string, number[]> = {};
    const missing: Record<string, number[]> = {};
    const add = (m: Record<string, number[]>, field: string, i: number) => {
      m[field] = [...(m[field] ?? []), i];
    };
    for (const [i, e] of (body.events as unknown[]).entries()) {
      if (!isObject(e)) {
        add(invalid, 'event', i);
        continue;
      }
      if (typeof e.event_type !== 'string' || e.event_type === '') add(missing, 'event_type', i);
      if (e.user_id === undefined && e.device_id === undefined) add(missing, 'user_id', i);
      for (const id of ['user_id', 'device_id'] as const) {
        if (e[id] !== undefined && (typeof e[id] !== 'string' || (e[id] as string).length < minIdLength))
          add(invalid, id, i);
      }
      if (e.time !== undefined && !Number.isInteger(e.time)) add(invalid, 'time', i);
    }
    if (Object.keys(invalid).length || Object.keys(missing).length) {
      return {
        status: 400,
        body: {
          code: 400,
          error: Object.keys(missing).length ? 'Request missing required field' : 'Invalid field values on some events',
          events_with_invalid_fields: invalid,
          events_with_missing_fields: missing,
        },
      };
    }
    for (const e of body.events as Record<string, unknown>[])
      this.events.set(typeof e.insert_id === 'string' ? e.insert_id : crypto.randomUUID(), e);
    return {
      status: 200,
      body: {
        code: 200,
        events_ingested: body.events.length,
        payload_size_bytes: request.body.length,
        server_upload_time: Date.now(),
      },
    };
  }
}

export async function startAmplitude(apiKey = 'amplitude_api_key_test'): Promise<AmplitudeStandIn> {
  return new AmplitudeStandIn(apiKey).start();
}
