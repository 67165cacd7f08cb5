import type { Queryable } from '../../kit/db.ts';

/** Most days a retention may be set to (a hundred years): beyond, "for ever" says it better. */
export const MAX_RETENTION_DAYS = 36_500;

/** A project's retention as the admin API and the CLI show it; null days mean for ever. */
export interface ProjectRetention {
  project_id: string;
  /** The project's own setting; null when it follows the default. */
  days: number | null;
  /** INGEST_RETENTION_DAYS; null when that is 0 (for ever). */
  default_days: number | null;
  /** What applies: `days` when set, otherwise `default_days`. */
  effective_days: number | null;
}

export class RetentionInputError extends Error {}
export class RetentionProjectNotFoundError extends Error {}

/** INGEST_RETENTION_DAYS as a number of days, or null for 0 (for ever). */
export function defaultDays(configured: number): number | null {
  return configured > 0 ? configured : null;
}

/** Refuses what is not a whole number of days from 1 to MAX_RETENTION_DAYS (null: follow the default). */
export function checkRetentionDays(days: unknown): number | null {
  if (days === null) return null;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)
    throw new RetentionInputError(
      `days: must be a whole number of days from 1 to ${MAX_RETENTION_DAYS.toLocaleString('en')}, or null to follow the default`,
    );
  return days;
}

export async function getProjectRetention(
  db: Queryable,
  projectId: string,
  configuredDefault: number,
): Promise<ProjectRetention> {
  const { rows } = await db.query<{ days: number | null }>(
    'SELECT r.days FROM projects p LEFT JOIN project_retention r ON r.project_id = p.id WHERE p.id = $1',
    [projectId],
  );
  if (rows.length === 0) throw new RetentionProjectNotFoundError(`no project ${projectId}`);
  return view(projectId, rows[0]!.days, configuredDefault);
}

/** Sets (or, with null, removes) a project's own retention; applied by the next maintenance. */
export async function setProjectRetention(
  db: Queryable,
  projectId: string,
  days: unknown,
  configuredDefault: number,
): Promise<ProjectRetention> {
  const checked = checkRetentionDays(days);
  const exists = await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId]);
  if (exists.rowCount === 0) throw new RetentionProjectNotFoundError(`no project ${projectId}`);
  if (checked === null) await db.query('DELETE FROM project_retention WHERE project_id = $1', [projectId]);
  else
    await db.query(
      `INSERT INTO project_retention (project_id, days) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET days = excluded.days, updated_at = now()`,
      [projectId, checked],
    );
  return view(projectId, checked, configuredDefault);
}

/** Every project's own setting (projects without one follow the default). */
export async function projectSettings(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ project_id: string; days: number }>(
    'SELECT project_id, days FROM project_retention',
  );
  return new Map(rows.map((r) => [r.project_id, r.days]));
}

function view(projectId: string, days: number | null, configuredDefault: number): ProjectRetention {
  const fallback = defaultDays(configuredDefault);
  return { project_id: projectId, days, default_days: fallback, effective_days: days ?? fallback };
}
