import type { Queryable } from '../../kit/db.ts';
import type { InternalUsers } from '../projects/internal-users.ts';

/** The `user.id` of an event, as the (project, user.id, time) index of migration 011 holds it. */
export const USER_ID = "(body ->> 'user.id')";

/**
 * The condition keeping the events of none of `users`: an event without a `user.id` is kept (NULL matches nothing).
 * Lists read it as a filter on the rows their own index gives; counts do not (internalCountsSql).
 */
export function keepOthers(users: InternalUsers, params: unknown[]): string {
  const exact = `${USER_ID} = ANY($${params.push(users.exact)}::text[])`;
  const prefixed = `EXISTS (SELECT FROM unnest($${params.push(users.prefixes)}::text[]) p WHERE starts_with(${USER_ID}, p))`;
  return `NOT coalesce(${exact} OR ${prefixed}, false)`;
}

/**
 * Whether an event of `userId` is one of `users`' (an exact id, or one a prefix starts), by the rule keepOthers and
 * internalEventsSql read in SQL, for events that are not read back from the database (the live stream, live/hub.ts):
 * an exact id compared exactly, a prefix by its start, and an event without a `user.id` nobody's.
 */
export function isInternal(users: InternalUsers, userId: string | null): boolean {
  if (userId === null) return false;
  return users.exact.includes(userId) || users.prefixes.some((prefix) => userId.startsWith(prefix));
}

/**
 * The end of a prefix's range in code point order: its last code point plus one (`test-` → `test.`), so that
 * `>= prefix AND < end` is exactly the ids starting with it. Undefined when there is none past it (U+10FFFF).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return undefined;
}

const CODE_POINT_ORDER = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'C.UTF8']);
const orderOf = new WeakMap<Queryable, Promise<boolean>>();

/**
 * Whether the database sorts text by code point (C, C.UTF-8), as a prefix's range needs: under a language's
 * collation (en_US.UTF-8 ignores punctuation at first) `test-a` sorts after `test.`, so the range would miss it and
 * the counts would keep events they must leave out. Asked once per pool.
 */
function sortsByCodePoint(db: Queryable): Promise<boolean> {
  let known = orderOf.get(db);
  if (!known) {
    known = db
      .query<{ collate: string; provider: string }>(
        `SELECT datcollate AS collate, datlocprovider::text AS provider FROM pg_database WHERE datname = current_database()`,
      )
      .then(({ rows }) => rows[0]?.provider === 'c' && CODE_POINT_ORDER.has(rows[0].collate));
    known.catch(() => orderOf.delete(db));
    orderOf.set(db, known);
  }
  return known;
}

/**
 * The events of `users` among those `where` selects (its parameters in `params`), as rows of their type and `time`,
 * each user's read through the (project, user.id, time) index: an exact id is one equality probe, a prefix one range
 * (`>= test- AND < test.`, rechecked with starts_with). `users` holds no id another entry covers, so no event comes
 * twice. Under a language's collation a prefix is read by starts_with alone (every event of the project's range with
 * a `user.id`): right, not fast.
 */
export async function internalEventsSql(
  db: Queryable,
  users: InternalUsers,
  where: string,
  params: unknown[],
): Promise<string> {
  const parts: string[] = [];
  const probe = (from: string, condition: string) =>
    `SELECT e.event_type, e.event_ts FROM ${from} CROSS JOIN LATERAL (
       SELECT event_type, event_ts FROM events WHERE ${where} AND ${condition}) e`;
  if (users.exact.length) parts.push(probe(`unnest($${params.push(users.exact)}::text[]) u(id)`, `${USER_ID} = u.id`));
  const ranged = users.prefixes.length ? await sortsByCodePoint(db) : false;
  const ranges = users.prefixes.map((prefix) => ({ prefix, stop: ranged ? prefixEnd(prefix) : undefined }));
  const bounded = ranges.filter((r) => r.stop !== undefined);
  const unbounded = ranges.filter((r) => r.stop === undefined).map((r) => r.prefix);
  if (bounded.length) {
    const from = `unnest($${params.push(bounded.map((r) => r.prefix))}::text[], $${params.push(bounded.map((r) => r.stop))}::text[]) u(prefix, stop)`;
    parts.push(probe(from, `${USER_ID} >= u.prefix AND ${USER_ID} < u.stop AND starts_with(${USER_ID}, u.prefix)`));
  }
  if (unbounded.length)
    parts.push(probe(`unnest($${params.push(unbounded)}::text[]) u(prefix)`, `starts_with(${USER_ID}, u.prefix)`));
  return parts.join('\nUNION ALL\n') || 'SELECT NULL::text AS event_type, NULL::timestamptz AS event_ts WHERE false';
}
