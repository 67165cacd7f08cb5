import type { Queryable } from '../../kit/db.ts';
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
  query: { projectId: string; from: Date; to: Date; bucket: Bucket } & TypeFilter,
): Promise<Counts> {
  const size = BUCKET_MS[query.bucket];
  const from = new Date(Math.floor(query.from.getTime() / size) * size);
  const to = new Date(Math.ceil(query.to.getTime() / size) * size);
  const params: unknown[] = [query.projectId, from, to];
  const where = ['project_id = $1', 'hour >= $2', 'hour < $3', ...typeConditions('event_type', query, params)].join(
    ' AND ',
  );
  const [byType, byTime] = await Promise.all([
    db.query<{ type: string; count: string }>(
      `SELECT event_type AS type, sum(n)::text AS count FROM event_counts WHERE ${where}
       GROUP BY 1 ORDER BY sum(n) DESC, 1`,
      params,
    ),
    db.query<{ start: Date; count: string }>(
      `SELECT date_trunc('${query.bucket}', hour, 'UTC') AS start, sum(n)::text AS count FROM event_counts
       WHERE ${where} GROUP BY 1 ORDER BY 1`,
      params,
    ),
  ]);
  const counted = new Map(byTime.rows.map((r) => [r.start.getTime(), Number(r.count)]));
  const by_time: Counts['by_time'] = [];
  for (let t = from.getTime(); t < to.getTime(); t += size)
    by_time.push({ start: new Date(t).toISOString(), count: counted.get(t) ?? 0 });
  const by_type = byType.rows.map((r) => ({ type: r.type, count: Number(r.count) }));
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    bucket: query.bucket,
    total: by_type.reduce((sum, t) => sum + t.count, 0),
    by_type,
    by_time,
  };
}
