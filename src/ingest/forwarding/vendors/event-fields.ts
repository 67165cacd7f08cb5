import { createHash } from 'node:crypto';
import { parseIsoTimestamp } from '../../events/timestamp.ts';

/** Reading the fields every vendor envelope needs from an event as received (validated by core: required fields exist). */
export function eventName(event: Record<string, unknown>): string {
  const name = event['event.name'];
  return typeof name === 'string' && name !== '' ? name : String(event['event.type']);
}

export function eventId(event: Record<string, unknown>): string {
  return String(event.event_id);
}

export function sessionId(event: Record<string, unknown>): string {
  return String(event['session.id']);
}

export function userId(event: Record<string, unknown>): string | undefined {
  const id = event['user.id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The event's time in epoch milliseconds, read by the parser that validated it, so every form the service accepts
 * (`-03`, `+0200`, `,5`, no seconds, lower-case `t`/`z`) converts exactly; `Date.parse` misreads or refuses several.
 * NaN only for a row stored before a parser change: the vendor refuses it and it ends in the dead letters.
 */
export function epochMs(event: Record<string, unknown>): number {
  return parseIsoTimestamp(String(event['event.timestamp'])) ?? Number.NaN;
}

/** The event's time as RFC 3339 in UTC with milliseconds (`2026-11-22T13:00:00.500Z`), the one form every vendor parses. */
export function isoTimestamp(event: Record<string, unknown>): string {
  const ms = epochMs(event);
  return Number.isNaN(ms) ? String(event['event.timestamp']) : new Date(ms).toISOString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Namespace of the name-based UUIDs made from event ids that are not UUIDs themselves (fixed forever: changing it breaks deduplication). */
export const EVENT_ID_NAMESPACE = '5b0c1d9e-7a43-4c2e-9f51-3e8d6a2b7c10';

/** RFC 9562 version 5 (SHA-1, name-based) UUID: the same event id always gives the same UUID. */
export function uuidV5(name: string, namespace = EVENT_ID_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** PostHog's `uuid` must be a UUID: an event id that is one is used as it is, any other is mapped by uuidV5. */
export function uuidFor(eventIdValue: string): string {
  return UUID.test(eventIdValue) ? eventIdValue.toLowerCase() : uuidV5(eventIdValue);
}

const MIXPANEL_INSERT_ID = /^[A-Za-z0-9-]{1,36}$/;

/**
 * Mixpanel's `$insert_id` is at most 36 characters of letters, digits and `-`. An event id that fits is used as it
 * is; any other becomes the first 36 hex characters of its SHA-256, as Mixpanel's documentation recommends.
 */
export function mixpanelInsertId(eventIdValue: string): string {
  return MIXPANEL_INSERT_ID.test(eventIdValue)
    ? eventIdValue
    : createHash('sha256').update(eventIdValue, 'utf8').digest('hex').slice(0, 36);
}
