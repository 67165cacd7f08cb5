import { createHash } from 'node:crypto';
import type { PreparedEvents } from '../events/validate.ts';

/**
 * One event per message in the stream. The payload is the event's row of PostgreSQL's binary COPY format — a 16-bit
 * field count (6) and the columns `project_id`, `event_id`, `event_type`, `event_ts`, `session_id`, `body`, each a
 * 32-bit length and its bytes — which are the elements a request's PreparedEvents already holds (pg-array.ts), so
 * neither the publisher nor a loader serialises or parses an event: a loader lays the rows of many messages side by
 * side and hands them to the group commit as they are.
 */
export const FIELDS = 6;

/** The columns of PreparedEvents in the order of the row (the order of COPY_EVENTS' column list). */
const COLUMNS = ['projects', 'eventIds', 'types', 'timestamps', 'sessions', 'bodies'] as const;

export interface EventMessages {
  payloads: Buffer[];
  /** Nats-Msg-Id of each: the stream's de-duplication window recognises a retried (project, event_id) by it. */
  ids: string[];
}

/** A message that is not a row of six fields, as written by eventMessages. */
export class MalformedMessageError extends Error {}

/** One message per event of `events`: its row and its id. */
export function eventMessages(events: PreparedEvents): EventMessages {
  const payloads: Buffer[] = [];
  const ids: string[] = [];
  const at = COLUMNS.map(() => 0);
  for (let i = 0; i < events.count; i++) {
    const fields = COLUMNS.map((column, c) => {
      const source = events[column];
      const start = at[c]!;
      const end = start + 4 + source.readInt32BE(start);
      at[c] = end;
      return source.subarray(start, end);
    });
    let size = 2;
    for (const f of fields) size += f.length;
    const row = Buffer.allocUnsafe(size);
    row.writeInt16BE(FIELDS, 0);
    let offset = 2;
    for (const f of fields) offset += f.copy(row, offset);
    payloads.push(row);
    ids.push(messageId(fields[0]!, fields[1]!));
  }
  return { payloads, ids };
}

/**
 * The message id of a (project, event_id), from their elements (a 4-byte length and the UTF-8 bytes, so the pair is
 * unambiguous): a hash, since an event_id may hold any character, newlines included, which a header cannot.
 */
export function messageId(projectElement: Buffer, eventIdElement: Buffer): string {
  return createHash('sha256').update(projectElement).update(eventIdElement).digest('base64url');
}

/** The rows of several messages as one PreparedEvents, for the group commit; throws MalformedMessageError for a bad one. */
export function preparedFromRows(rows: readonly Uint8Array[]): PreparedEvents {
  const pieces = COLUMNS.map(() => [] as Buffer[]);
  for (const data of rows) {
    const row = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (row.length < 2 || row.readInt16BE(0) !== FIELDS) throw new MalformedMessageError('not a row of 6 fields');
    let at = 2;
    for (let c = 0; c < FIELDS; c++) {
      if (at + 4 > row.length) throw new MalformedMessageError('the row ends early');
      const end = at + 4 + row.readInt32BE(at);
      if (end > row.length || end < at + 4) throw new MalformedMessageError('the row ends early');
      // event_ts: a binary timestamptz, 8 bytes.
      if (c === 3 && end - at !== 12) throw new MalformedMessageError('event_ts is not 8 bytes');
      pieces[c]!.push(row.subarray(at, end));
      at = end;
    }
    if (at !== row.length) throw new MalformedMessageError('bytes after the row');
  }
  const [projects, eventIds, types, timestamps, sessions, bodies] = pieces.map((p) => Buffer.concat(p)) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  return { count: rows.length, projects, eventIds, types, timestamps, sessions, bodies };
}
