import type { Queryable } from '../../kit/db.ts';
import type { InternalUsers } from '../projects/internal-users.ts';
import { internalEventsSql } from './internal-filter.ts';
import { typeConditions, type TypeFilter } from './type-filter.ts';

export type Bucket = 'hour' | 'day';
export const BUCKET_MS: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The most buckets one answer holds: 93 days by the hour, about 10 years by the day. */
export const MAX_BUCKETS = 2_232;

export interface Counts {
  from: string;
  to: string;
  bucket: Bucket;
  total: number;
  by_type: { type: string; count: number }[];
  /** Every bucket of the range in order, empty ones with 0. */
  by_time: { start: string; count: number }[];
}

/**
 * Counts of a project's events by type and by bucket over [from, to), read from the hourly counts (event_counts,
 * migration 010) rather than from the events: the range is widened to whole buckets (UTC), which the answer says.
 */
export async function countEvents(
  db: Queryable,
  query: { projectId: string; from: Date; to: Date; bucket: Bucket; leaveOut?: InternalUsers | undefined } & TypeFilter,
): Promise<Counts> {
  const size = BUCKET_MS[query.bucket];
  const from = new Date(Math.floor(query.from.getTime() / size) * size);
  const to = new Date(Math.ceil(query.to.getTime() / size) * size);
  const params: unknown[] = [query.projectId, from, to];
  const types = typeConditions('event_type', query, params);
  // The hourly rows by their hour, the events by their time: the same range and types, the same parameters.
  const where = (time: string) => [`project_id = $1`, `${time} >= $2`, `${time} < $3`, ...types].join(' AND ');
  const leaveOut = query.leaveOut;
  const { byType, byTime } =
    leaveOut && (leaveOut.exact.length || leaveOut.prefixes.length)
      ? await countWithout(db, query.bucket, where, params, leaveOut)
      : await countAll(db, query.bucket, where, params);
  const counted = new Map(byTime.map((r) => [r.start.getTime(), r.count]));
  const by_time: Counts['by_time'] = [];
  for (let t = from.getTime(); t < to.getTime(); t += size)
    by_time.push({ start: new Date(t).toISOString(), count: counted.get(t) ?? 0 });
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    bucket: query.bucket,
    total: byType.reduce((sum, t) => sum + t.count, 0),
    by_type: byType,
    by_time,
  };
}

type Where = (time: string) => string;
type Tally = { byType: Counts['by_type']; byTime: { start: Date; count: number }[] };

/**
 * Every event of the range: the hourly rows, summed by type and by bucket. A type whose events were all erased
 * (its rows and an erasure's negative ones summing to 0) is not listed.
 */
async function countAll(db: Queryable, bucket: Bucket, where: Where, params: unknown[]): Promise<Tally> {
  const [byType, byTime] = await Promise.all([
    db.query<{ type: string; count: string }>(
      `SELECT event_type AS type, sum(n)::text AS count FROM event_counts WHERE ${where('hour')}
       GROUP BY 1 HAVING sum(n) <> 0 ORDER BY sum(n) DESC, 1`,
      params,
    ),
    db.query<{ start: Date; count: string }>(
      `SELECT date_trunc('${bucket}', hour, 'UTC') AS start, sum(n)::text AS count FROM event_counts
       WHERE ${where('hour')} GROUP BY 1 ORDER BY 1`,
      params,
    ),
  ]);
  return {
    byType: byType.rows.map((r) => ({ type: r.type, count: Number(r.count) })),
    byTime: byTime.rows.map((r) => ({ start: r.start, count: Number(r.count) })),
  };
}

/**
 * The range's events but those of `leaveOut`: the hourly rows by type and bucket less the left-out users' events of
 * the same types and buckets, which are read through the (project, user.id, time) index (internalEventsSql) and never
 * the range's other events. One statement, so both sides see the same events. A type left with none is not listed.
 */
async function countWithout(
  db: Queryable,
  bucket: Bucket,
  where: Where,
  params: unknown[],
  leaveOut: InternalUsers,
): Promise<Tally> {
  const all = [...params];
  const internal = await internalEventsSql(db, leaveOut, where('event_ts'), all);
  const { rows } = await db.query<{ type: string; start: Date; count: string }>(
    `WITH counted AS (
       SELECT event_type, date_trunc('${bucket}', hour, 'UTC') AS start, sum(n) AS n FROM event_counts
       WHERE ${where('hour')} GROUP BY 1, 2),
     internal AS (
       SELECT event_type, date_trunc('${bucket}', event_ts, 'UTC') AS start, count(*) AS n FROM (${internal}) i
       GROUP BY 1, 2)
     SELECT c.event_type AS type, c.start, greatest(c.n - coalesce(i.n, 0), 0)::text AS count
     FROM counted c LEFT JOIN internal i USING (event_type, start)`,
    all,
  );
  const types = new Map<string, number>();
  const times = new Map<number, number>();
  for (const r of rows) {
    const n = Number(r.count);
    if (n === 0) continue;
    types.set(r.type, (types.get(r.type) ?? 0) + n);
    times.set(r.start.getTime(), (times.get(r.start.getTime()) ?? 0) + n);
  }
  return {
    byType: [...types]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)),
    byTime: [...times].map(([t, count]) => ({ start: new Date(t), count })),
  };
}
