import { decodeElements } from '../events/pg-array.ts';
import type { PreparedEvents, Rejection } from '../events/validate.ts';

/** The body of an event shown live, at most; a larger one is left out (`truncated`), read in full by the read API. */
export const LIVE_BODY_BYTES = 2_048;
/** The longest text of one field of a rejected event's summary. */
const FIELD_CHARS = 200;

/** One event as the live stream sends it: accepted (stored) or rejected, with why. */
export type LiveRecord = AcceptedRecord | RejectedRecord;

export interface AcceptedRecord {
  kind: 'accepted';
  project_id: string;
  at: string;
  event_id: string;
  type: string;
  session_id: string;
  user_id: string | null;
  /** The event as stored, when under LIVE_BODY_BYTES; `truncated` otherwise. */
  body: Record<string, unknown> | null;
  truncated: boolean;
}

export interface RejectedRecord {
  kind: 'rejected';
  /** null: the request could not be tied to a project (no key, an unknown key, a refused origin's preflight). */
  project_id: string | null;
  at: string;
  /** The rule broken, as in the service's metrics (`required`, `unauthorized`, `origin_refused`, ...). */
  reason: string;
  /** The message the client was answered. */
  error: string;
  /** The event's position in its batch, for a single rejected event; null for a refused request. */
  index: number | null;
  event_id: string | null;
  type: string | null;
  session_id: string | null;
  user_id: string | null;
  origin: string | null;
}

const short = (v: unknown): string | null => (typeof v === 'string' ? v.slice(0, FIELD_CHARS) : null);

/** The accepted events of one request, from what the group commit was handed (decoded only when someone watches). */
export function acceptedRecords(projectId: string, prepared: PreparedEvents, at: Date): AcceptedRecord[] {
  const bodies = decodeElements(prepared.bodies);
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
