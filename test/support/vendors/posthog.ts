import { isRfc3339, isObject, parseJsonBody, StandIn, type Answer, type Received } from './stand-in.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * PostHog's public capture endpoint `POST /batch/`: `{api_key, batch:[...]}`, 20 MB per request, an event needs
 * `event` and a distinct id, `uuid` must parse as a UUID and `timestamp` as an ISO 8601 date-time (a bad one fails
 * the whole request), deduplicated on uuid.
 * Answers 200 `{status:1}`; errors are `{type, code, detail}`.
 */
export class PostHogStandIn extends StandIn {
  /** Stored events by uuid (PostHog deduplicates on it). */
  readonly events = new Map<string, Record<string, unknown>>();
  protected readonly maxBodyBytes = 20 * 1024 * 1024;
  private readonly apiKey: string;

  constructor(apiKey: string) {
    super();
    this.apiKey = apiKey;
  }

  protected tooLarge(): Answer {
    return {
      status: 413,
      body: { type: 'validation_error', code: 'payload_too_large', detail: 'Request body is larger than 20MB' },
    };
  }

  protected answer(request: Received): Answer {
    if (request.method !== 'POST' || !/^\/batch\/?$/.test(request.url.pathname))
      return { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found' } };
    const parsed = parseJsonBody(request);
    if (!parsed.ok || !isObject(parsed.value)) return invalid('Malformed request data: body is not a JSON object');
    const body = parsed.value;
    if (body.api_key !== this.apiKey) {
      return {
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'invalid_api_key',
          detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
        },
      };
    }
    if (!Array.isArray(body.batch) || body.batch.length === 0)
      return invalid(
        'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
      );
    const accepted: Record<string, unknown>[] = [];
    for (const e of body.batch) {
      if (!isObject(e)) return invalid('Invalid payload: batch items must be objects');
      if (e.uuid !== undefined && (typeof e.uuid !== 'string' || !UUID.test(e.uuid)))
        return invalid(`Invalid payload: invalid UUID ${JSON.stringify(e.uuid)}`);
      if (e.timestamp !== undefined && !isRfc3339(e.timestamp))
        return invalid(`Invalid payload: invalid timestamp ${JSON.stringify(e.timestamp)}`);
      if (typeof e.event !== 'string' || e.event === '')
        return invalid('Invalid payload: all events must have the event name field');
      const props = isObject(e.properties) ? e.properties : {};
      const distinct = e.distinct_id ?? props.distinct_id ?? props.$distinct_id;
      if (typeof distinct !== 'string' || distinct === '')
        return invalid('Invalid payload: all events must have the distinct_id field');
      accepted.push(e);
    }
    for (const e of accepted) this.events.set(typeof e.uuid === 'string' ? e.uuid : crypto.randomUUID(), e);
    return { status: 200, body: { status: 1 } };
  }
}

function invalid(detail: string): Answer {
  return { status: 400, body: { type: 'validation_error', code: 'invalid_payload', detail } };
}

export async function startPostHog(apiKey = 'phc_test_project_key'): Promise<PostHogStandIn> {
  return new PostHogStandIn(apiKey).start();
}
