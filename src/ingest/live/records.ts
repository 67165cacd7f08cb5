import type { PreparedEvents, Rejection } from '../events/validate.ts';
import type { AcceptedRecord, RejectedRecord } from './record-types.ts';

export type { AcceptedRecord, LiveRecord, RejectedRecord } from './record-types.ts';

/** The body of an event shown live, at most; a larger one is left out (`truncated`), read in full by the read API. */
export const LIVE_BODY_BYTES = 2_048;
/** The longest text of one field of a rejected event's summary. */
const FIELD_CHARS = 200;

/** The first `limit` strings of encodeElements' output (events/pg-array.ts). */
function decodeElements(elements: Buffer, limit: number): string[] {
  const values: string[] = [];
  for (let at = 0; at < elements.length && values.length < limit; ) {
    const length = elements.readInt32BE(at);
    at += 4;
    values.push(elements.toString('utf8', at, at + length));
    at += length;
  }
  return values;
}

const short = (v: unknown): string | null => (typeof v === 'string' ? v.slice(0, FIELD_CHARS) : null);

/**
 * The first `limit` accepted events of one request (all by default), from what the group commit was handed: decoded
 * only when someone watches, and only as many as the stream will pass on.
 */
export function acceptedRecords(
  projectId: string,
  prepared: PreparedEvents,
  at: Date,
  limit = prepared.count,
): AcceptedRecord[] {
  const bodies = decodeElements(prepared.bodies, limit);
  const when = at.toISOString();
  return bodies.map((text) => {
    const body = JSON.parse(text) as Record<string, unknown>;
    const small = Buffer.byteLength(text) <= LIVE_BODY_BYTES;
    return {
      kind: 'accepted',
      project_id: projectId,
      at: when,
      event_id: String(body.event_id),
      type: String(body['event.type']),
      session_id: String(body['session.id']),
      user_id: short(body['user.id']),
      body: small ? body : null,
      truncated: !small,
    };
  });
}

/** The events of a batch rejected one by one; `events` is the batch parsed again, when it could be. */
export function rejectedRecords(
  projectId: string,
  rejections: readonly Rejection[],
  events: readonly unknown[] | undefined,
  origin: string | undefined,
  at: Date,
): RejectedRecord[] {
  return rejections.map((r) => {
    const e = events?.[r.index];
    const fields = typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {};
    return {
      kind: 'rejected',
      project_id: projectId,
      at: at.toISOString(),
      reason: r.reason,
      error: r.error,
      index: r.index,
      event_id: short(fields.event_id),
      type: short(fields['event.type']),
      session_id: short(fields['session.id']),
      user_id: short(fields['user.id']),
      origin: origin?.slice(0, FIELD_CHARS) ?? null,
    };
  });
}

/** A whole request refused (bad key, bad body, refused origin). */
export function refusedRequest(
  projectId: string | null,
  reason: string,
  error: string,
  origin: string | undefined,
  at: Date,
): RejectedRecord {
  return {
    kind: 'rejected',
    project_id: projectId,
    at: at.toISOString(),
    reason,
    error: error.slice(0, 1_000),
    index: null,
    event_id: null,
    type: null,
    session_id: null,
    user_id: null,
    origin: origin?.slice(0, FIELD_CHARS) ?? null,
  };
}
