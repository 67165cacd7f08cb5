import { basicAuth, isObject, StandIn, type Answer, type Received } from './stand-in.ts';

const INSERT_ID = /^[A-Za-z0-9-]{1,36}$/;
const INVALID_DISTINCT_IDS = new Set([
  'anon',
  'anonymous',
  'nil',
  'none',
  'null',
  'n/a',
  'na',
  'undefined',
  'unknown',
  '<nil>',
  '0',
  '-1',
  'true',
  'false',
  '[]',
  '{}',
  '00000000-0000-0000-0000-000000000000',
]);
const MAX_EVENTS = 2000;
const MAX_EVENT_BYTES = 1024 * 1024;

export interface FailedRecord {
  index: number;
  insert_id: string;
  field: string;
  message: string;
}

/**
 * Mixpanel's Import API `POST /import`: HTTP Basic as a service account (with `project_id`) or the project token
 * as user name; a JSON array (or NDJSON); 2,000 events and 10 MB per request, 1 MB per event. With `strict=1`
 * invalid events are listed in a 400 `failed_records` while the valid ones are imported; without it they are
 * dropped silently. Each event needs `event`, `properties.time` (seconds or ms, from 1971 to an hour ahead),
 * a `distinct_id` that is not a placeholder and an `$insert_id` of at most 36 letters, digits or `-`.
 */
export class MixpanelStandIn extends StandIn {
  /** Imported events by $insert_id (Mixpanel deduplicates on it). */
  readonly events = new Map<string, Record<string, unknown>>();
  protected readonly maxBodyBytes = 10 * 1024 * 1024;
  private readonly token: string;
  private readonly serviceAccount: { username: string; secret: string; projectId: string } | undefined;

  constructor(token: string, serviceAccount?: { username: string; secret: string; projectId: string }) {
    super();
    this.token = token;
    this.serviceAccount = serviceAccount;
  }

  protected tooLarge(): Answer {
    return {
      status: 413,
      body: {
        code: 413,
        error: `request exceeds max limit of ${this.maxBodyBytes} bytes`,
        status: 'Request Entity Too Large',
      },
    };
  }

  protected answer(request: Received): Answer {
    if (request.method !== 'POST' || request.url.pathname !== '/import')
      return { status: 404, body: { code: 404, error: 'not found', status: 'Not Found' } };
    const auth = basicAuth(request.headers);
    const sa = this.serviceAccount;
    const byServiceAccount = sa && auth?.user === sa.username && auth.password === sa.secret;
    if (byServiceAccount && request.url.searchParams.get('project_id') !== sa.projectId) {
      return {
        status: 401,
        body: {
          code: 401,
          error: 'project_id is required when authenticating with a service account, and must match it',
          status: 'Unauthorized',
        },
      };
    }
    if (!byServiceAccount && !(auth?.user === this.token && auth.password === ''))
      return { status: 401, body: { code: 401, error: 'Invalid credentials', status: 'Unauthorized' } };
    const text = request.body.toString('utf8');
    let records: unknown;
    try {
      records = String(request.headers['content-type'] ?? '').startsWith('application/x-ndjson')
        ? text
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as unknown)
        : JSON.parse(text);
    } catch {
      return bad('unable to parse JSON body');
    }
    if (!Array.isArray(records)) return bad('request body must be a JSON array of events');
    if (records.length > MAX_EVENTS)
      return bad(`too many events: ${records.length}, the maximum is ${MAX_EVENTS} per request`);
    const failed: FailedRecord[] = [];
    const valid: [string, Record<string, unknown>][] = [];
    records.forEach((r, index) => {
      const problem = validate(r);
      const insertId = isObject(r) && isObject(r.properties) ? String(r.properties.$insert_id ?? '') : '';
      if (problem) failed.push({ index, insert_id: insertId, ...problem });
      else valid.push([insertId, r as Record<string, unknown>]);
    });
    const strict = request.url.searchParams.get('strict') === '1';
    for (const [id, r] of valid) this.events.set(id, r);
    if (failed.length > 0 && strict) {
      return {
        status: 400,
        body: {
          code: 400,
          error: 'some data points in the request failed validation',
          status: 'Bad Request',
          num_records_imported: valid.length,
          failed_records: failed,
        },
      };
    }
    return { status: 200, body: { code: 200, num_records_imported: valid.length, status: 'OK' } };
  }
}

function validate(r: unknown): { field: string; message: string } | undefined {
  if (!isObject(r)) return { field: '', message: 'event must be a JSON object' };
  if (Buffer.byteLength(JSON.stringify(r)) > MAX_EVENT_BYTES)
    return { field: '', message: 'event exceeds the 1MB size limit' };
  if (typeof r.event !== 'string' || r.event === '')
    return { field: 'event', message: "'event' must be a non-empty string" };
  if (!isObject(r.properties)) return { field: 'properties', message: "'properties' must be an object" };
  const p = r.properties;
  const time = p.time;
  if (typeof time !== 'number' || !Number.isFinite(time))
    return {
      field: 'properties.time',
      message: "'properties.time' is invalid: must be specified as seconds since epoch",
    };
  const ms = time < 1e11 ? time * 1000 : time;
  if (ms < Date.UTC(1971, 0, 1) || ms > Date.now() + 3_600_000)
    return {
      field: 'properties.time',
      message: "'properties.time' is invalid: must be after 1971-01-01 and no more than 1 hour in the future",
    };
  if (typeof p.distinct_id !== 'string')
    return { field: 'properties.distinct_id', message: "'properties.distinct_id' must be a string" };
  if (INVALID_DISTINCT_IDS.has(p.distinct_id.toLowerCase()))
    return {
      field: 'properties.distinct_id',
      message: `'properties.distinct_id' is invalid: ${JSON.stringify(p.distinct_id)} is not a valid distinct_id`,
    };
  if (typeof p.$insert_id !== 'string' || !INSERT_ID.test(p.$insert_id))
    return {
      field: 'properties.$insert_id',
      message: "'properties.$insert_id' must be at most 36 alphanumeric characters or '-'",
    };
  return undefined;
}

function bad(error: string): Answer {
  return { status: 400, body: { code: 400, error, status: 'Bad Request' } };
}

export async function startMixpanel(
  token = 'mixpanel_project_token',
  serviceAccount?: { username: string; secret: string; projectId: string },
): Promise<MixpanelStandIn> {
  return new MixpanelStandIn(token, serviceAccount).start();
}
