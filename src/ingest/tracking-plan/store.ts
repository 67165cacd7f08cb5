import type { Queryable } from '../../kit/db.ts';
import { compilePlan, type CompiledPlan, NO_PLAN, type TrackingPlan } from './plan.ts';

/** A project's plan (NO_PLAN when it has none); undefined when there is no such project. */
export async function getTrackingPlan(db: Queryable, projectId: string): Promise<TrackingPlan | undefined> {
  const { rows } = await db.query<{ tracking_plan: TrackingPlan | null }>(
    'SELECT tracking_plan FROM projects WHERE id = $1',
    [projectId],
  );
  if (rows.length === 0) return undefined;
  return rows[0]!.tracking_plan ?? NO_PLAN;
}

/** Replaces a project's plan (already normalized); false when there is no such project. */
export async function setTrackingPlan(db: Queryable, projectId: string, plan: TrackingPlan): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>('UPDATE projects SET tracking_plan = $2 WHERE id = $1 RETURNING id', [
    projectId,
    JSON.stringify(plan),
  ]);
  return rows.length > 0;
}

/** Every plan that is on, compiled, by project: what the cache holds. */
export async function loadTrackingPlans(db: Queryable): Promise<Map<string, CompiledPlan>> {
  const { rows } = await db.query<{ id: string; tracking_plan: TrackingPlan }>(
    "SELECT id, tracking_plan FROM projects WHERE tracking_plan IS NOT NULL AND tracking_plan->>'mode' <> 'off'",
  );
  const plans = new Map<string, CompiledPlan>();
  for (const r of rows) {
    const compiled = compilePlan(r.tracking_plan);
    if (compiled) plans.set(r.id, compiled);
  }
  return plans;
}

export interface ViolationCount {
  event: string;
  reason: string;
  count: number;
}

/** Violations of a project in [from, to), by event and reason, most first. */
export async function countViolations(
  db: Queryable,
  projectId: string,
  from: Date,
  to: Date,
): Promise<ViolationCount[]> {
  const { rows } = await db.query<{ event: string; reason: string; count: string }>(
    `SELECT event_name AS event, reason, sum(n)::text AS count FROM tracking_plan_violations
     WHERE project_id = $1 AND hour >= $2 AND hour < $3
     GROUP BY event_name, reason ORDER BY sum(n) DESC, event_name, reason LIMIT 1000`,
    [projectId, from, to],
  );
  return rows.map((r) => ({ event: r.event, reason: r.reason, count: Number(r.count) }));
}

/** Appends tallied counts, one row per (project, hour, event, reason), in one statement. */
export async function appendViolations(
  db: Queryable,
  rows: { project: string; hour: Date; event: string; reason: string; n: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO tracking_plan_violations (project_id, hour, event_name, reason, n)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])`,
    [
      rows.map((r) => r.project),
      rows.map((r) => r.hour.toISOString()),
      rows.map((r) => r.event),
      rows.map((r) => r.reason),
      rows.map((r) => r.n),
    ],
  );
}

/** Counts older than the window the API answers are of no use: forgotten. */
export async function forgetViolationsBefore(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM tracking_plan_violations WHERE hour < $1', [before]);
}
