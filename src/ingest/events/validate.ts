import {
  EVENT_TYPES,
  MAX_EVENT_BYTES,
  MAX_ID_LENGTH,
  MAX_NESTING,
  OPTIONAL_FIELDS,
  REQUIRED_FIELDS,
  type OptionalKind,
} from './fields.ts';
import { encodeElements, encodeTimestamps, repeatElement } from './pg-array.ts';
import type { RawEvents } from './raw-events.ts';
import { parseIsoTimestamp } from './timestamp.ts';
import type { CompiledPlan, Violation } from '../tracking-plan/plan.ts';

/** Why an event was rejected, as a metric label; the message tells the client the field. */
export type RejectReason =
  | 'not_object'
  | 'required'
  | 'wrong_type'
  | 'invalid_value'
  | 'event_type'
  | 'timestamp'
  | 'project_mismatch'
  | 'too_deep'
  | 'too_large'
  | 'unstorable'
  | 'duplicate_in_batch'
  | 'tracking_plan';

export interface Rejection {
  index: number;
  error: string;
  reason: RejectReason;
}

/**
 * The accepted events of one request, ready for one multi-row INSERT: one column each, as the elements of a
 * PostgreSQL binary array (see pg-array.ts), so PostgreSQL stores them without parsing the events again. They are
 * kept compact while the request waits for its commit: UTF-8 bytes rather than (often two-byte) strings, one
 * Buffer per column rather than an array of strings.
 */
export interface PreparedEvents {
  count: number;
  /** The accepted events serialised (the `body` column). */
  bodies: Buffer;
  /** The `project_id`, `event_id`, `event.type` and `session.id` of each accepted event. */
  projects: Buffer;
  eventIds: Buffer;
  types: Buffer;
  sessions: Buffer;
  /** `event.timestamp` of each accepted event as an instant, for the `event_ts` column. */
  timestamps: Buffer;
}

export interface ValidatedBatch {
  prepared: PreparedEvents;
  rejections: Rejection[];
  /** Valid events left out because their `user.id` is suppressed (an erasure's): answered as accepted, never stored. */
  suppressed: number;
  /** Valid events that broke the project's tracking plan (rejected too when it is enforced), for its counts. */
  violations: Violation[];
}

const EVENT_TYPE_LIST = [...EVENT_TYPES].join(', ');
// JSON.stringify escapes exactly these: NUL and unpaired surrogates, which PostgreSQL's jsonb and text refuse.
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/;

/**
 * Validates each event on its own; the first of several events sharing an `event_id` wins. With `raw` (the events'
 * bytes in the request, raw-events.ts) an event whose bytes are what JSON.stringify would write is stored from them.
 * A valid event whose `user.id` is in `suppressed` (the project's suppressed users, erasure/suppressions.ts) is left
 * out and counted, after the check for repeats, so a batch answers the same errors whoever is suppressed. With a
 * tracking plan (tracking-plan/plan.ts) each valid event is checked against it: an event breaking an enforced plan is
 * rejected like an invalid one (and so does not count as the first of its `event_id`); every break is returned.
 */
export function validateBatch(
  events: readonly unknown[],
  projectId: string,
  raw?: RawEvents,
  suppressed?: ReadonlySet<string>,
  plan?: CompiledPlan,
): ValidatedBatch {
  const rejections: Rejection[] = [];
  const violations: Violation[] = [];
  let dropped = 0;
  // Per accepted event: its serialised text, or the index of its canonical bytes in `raw`.
  const bodies: (string | number)[] = [];
  const eventIds: string[] = [];
  const types: string[] = [];
  const sessions: string[] = [];
  const timestamps: number[] = [];
  const seen = new Map<string, number>();
  for (let index = 0; index < events.length; index++) {
    const outcome = validateEvent(events[index], projectId, raw, index);
    if ('error' in outcome) {
      rejections.push({ index, error: outcome.error, reason: outcome.reason });
      continue;
    }
    const first = seen.get(outcome.eventId);
    if (first !== undefined) {
      rejections.push({
        index,
        error: `event_id: repeated within the batch (first at index ${first})`,
        reason: 'duplicate_in_batch',
      });
      continue;
    }
    const violation = plan?.check(events[index] as Record<string, unknown>);
    if (violation) {
      violations.push(violation);
      if (plan!.mode === 'enforce') {
        rejections.push({ index, error: violation.error, reason: 'tracking_plan' });
        continue;
      }
    }
    seen.set(outcome.eventId, index);
    if (suppressed?.has((events[index] as Record<string, unknown>)['user.id'] as string)) {
      dropped++;
      continue;
    }
    bodies.push('body' in outcome ? outcome.body : outcome.rawIndex);
    eventIds.push(outcome.eventId);
    types.push(outcome.type);
    sessions.push(outcome.session);
    timestamps.push(outcome.ms);
  }
  const prepared: PreparedEvents = {
    count: bodies.length,
    bodies: encodeBodies(bodies, raw),
    projects: repeatElement(projectId, bodies.length),
    eventIds: encodeElements(eventIds),
    types: encodeElements(types),
    sessions: encodeElements(sessions),
    timestamps: encodeTimestamps(timestamps),
  };
  return { prepared, rejections, suppressed: dropped, violations };
}

/** An accepted event carries its `body` serialised, or `rawIndex`: its canonical bytes are those of event `rawIndex` in `raw`. */
type Outcome =
  | { eventId: string; type: string; session: string; body: string; ms: number }
  | { eventId: string; type: string; session: string; rawIndex: number; ms: number }
  | { error: string; reason: RejectReason };

export function validateEvent(value: unknown, projectId: string, raw?: RawEvents, index = 0): Outcome {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'event: must be an object', reason: 'not_object' };
  const event = value as Record<string, unknown>;
  for (const field of REQUIRED_FIELDS) {
    const v = event[field];
    if (v === undefined) return { error: `${field}: required`, reason: 'required' };
    if (typeof v !== 'string') return { error: `${field}: must be a string`, reason: 'wrong_type' };
    if (v.length === 0) return { error: `${field}: must not be empty`, reason: 'invalid_value' };
  }
  const eventId = event.event_id as string;
  if (eventId.length > MAX_ID_LENGTH)
    return { error: `event_id: must be at most ${MAX_ID_LENGTH} characters`, reason: 'invalid_value' };
  if (!EVENT_TYPES.has(event['event.type'] as string))
    return { error: `event.type: must be one of ${EVENT_TYPE_LIST}`, reason: 'event_type' };
  const ms = parseIsoTimestamp(event['event.timestamp'] as string);
  if (ms === undefined)
    return { error: 'event.timestamp: must be an ISO 8601 date-time with a time zone', reason: 'timestamp' };
  if (event.project_id !== projectId)
    return { error: 'project_id: does not match the project of the API key', reason: 'project_mismatch' };

  for (const [field, kind] of OPTIONAL_FIELDS) {
    const v = event[field];
    if (v === undefined) continue;
    const problem = checkOptional(v, kind);
    if (problem) return { error: `${field}: ${problem[0]}`, reason: problem[1] };
  }

  // Before serialising: 5,000 levels fit in 10 KB, and both JSON.stringify (stack overflow) and jsonb would fail on them.
  // Members are counted on the way: fewer than the request's bytes hold means a key was repeated there.
  let members = 0;
  for (const field in event) {
    members++;
    const v = event[field];
    if (typeof v === 'object' && v !== null) {
      const within = membersWithin(v, MAX_NESTING);
      if (within < 0)
        return { error: `${field}: must not be nested more than ${MAX_NESTING} levels deep`, reason: 'too_deep' };
      members += within;
    }
  }

  const session = event['session.id'] as string;
  const type = event['event.type'] as string;
  const rawEnd = raw === undefined ? -1 : raw.spans[2 * index + 1]!;
  if (rawEnd >= 0 && raw!.members[index] === members) {
    // The same bytes JSON.stringify would write (raw-events.ts): no escape that could hide a NUL or a surrogate.
    const bytes = rawEnd - raw!.spans[2 * index]!;
    if (bytes > MAX_EVENT_BYTES)
      return { error: `event: must be at most 100 KB serialized (got ${bytes} bytes)`, reason: 'too_large' };
    return { eventId, type, session, rawIndex: index, ms };
  }

  const body = JSON.stringify(event);
  // Bytes of UTF-8; the string length is a lower bound, so the exact count is only needed near the limit.
  if (body.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(body) > MAX_EVENT_BYTES) {
    return {
      error: `event: must be at most 100 KB serialized (got ${Buffer.byteLength(body)} bytes)`,
      reason: 'too_large',
    };
  }
  if (UNSTORABLE_ESCAPE.test(body)) {
    const field = unstorableField(event);
    if (field !== undefined)
      return {
        error: `${field}: contains a NUL character or an unpaired surrogate, which cannot be stored`,
        reason: 'unstorable',
      };
  }
  return { eventId, type, session, body, ms };
}

/** The `body` column's elements: each serialised text encoded, each canonical event's bytes copied from the request. */
function encodeBodies(bodies: readonly (string | number)[], raw: RawEvents | undefined): Buffer {
  if (raw === undefined) return encodeElements(bodies as string[]);
  const { bytes, spans } = raw;
  let size = 4 * bodies.length;
  const lengths = new Array<number>(bodies.length);
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i]!;
    size += lengths[i] = typeof b === 'number' ? spans[2 * b + 1]! - spans[2 * b]! : Buffer.byteLength(b);
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i]!;
    out.writeInt32BE(lengths[i]!, at);
    at += 4;
    at +=
      typeof b === 'number'
        ? bytes.copy(out, at, spans[2 * b]!, spans[2 * b + 1]!)
        : out.write(b, at, lengths[i]!, 'utf8');
  }
  return out;
}

type Problem = readonly [message: string, reason: RejectReason];

const NOT_STRING: Problem = ['must be a string', 'wrong_type'];
const NOT_INTEGER: Problem = ['must be an integer', 'wrong_type'];

export function checkOptional(v: unknown, kind: OptionalKind): Problem | undefined {
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? undefined : NOT_STRING;
    case 'json-string':
      if (typeof v !== 'string') return NOT_STRING;
      try {
        JSON.parse(v);
        return undefined;
      } catch {
        return ['must be a string holding JSON', 'invalid_value'];
      }
    case 'count':
      if (typeof v !== 'number' || !Number.isInteger(v)) return NOT_INTEGER;
      return v >= 0 && Number.isSafeInteger(v) ? undefined : ['must be an integer of at least 0', 'invalid_value'];
    case 'status-code':
      if (typeof v !== 'number' || !Number.isInteger(v)) return NOT_INTEGER;
      return v >= 100 && v <= 599 ? undefined : ['must be an integer from 100 to 599', 'invalid_value'];
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? undefined : ['must be an object', 'wrong_type'];
  }
}

/**
 * The object members (keys) within `value` at every depth, or -1 when objects and arrays nest more than `levels`
 * deep, `value` itself counting as the first level.
 */
function membersWithin(value: object, levels: number): number {
  if (levels === 0) return -1;
  let members = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item !== 'object' || item === null) continue;
      const within = membersWithin(item as object, levels - 1);
      if (within < 0) return -1;
      members += within;
    }
    return members;
  }
  for (const key in value) {
    members++;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'object' || item === null) continue;
    const within = membersWithin(item, levels - 1);
    if (within < 0) return -1;
    members += within;
  }
  return members;
}

/** The top-level field (or `event` for a key) holding a NUL or an unpaired surrogate; undefined when the escape was a false alarm. */
function unstorableField(event: Record<string, unknown>): string | undefined {
  for (const [key, v] of Object.entries(event)) {
    if (!storable(key)) return 'event';
    if (!deepStorable(v)) return key;
  }
  return undefined;
}

function storable(s: string): boolean {
  return s.isWellFormed() && !s.includes('\u0000');
}

function deepStorable(v: unknown): boolean {
  if (typeof v === 'string') return storable(v);
  if (Array.isArray(v)) return v.every(deepStorable);
  if (typeof v === 'object' && v !== null) return Object.entries(v).every(([k, x]) => storable(k) && deepStorable(x));
  return true;
}
