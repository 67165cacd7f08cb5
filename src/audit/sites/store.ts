import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { AuditJobStatus } from '../result/types.ts';
import type { SiteConfig } from './schemas.ts';
import { scheduleOut, SCHEDULE_FIELDS, type ScheduleRow, type ScheduleOutRecord } from '../schedules/store.ts';

/** Sites one credential may keep. */
export const MAX_SITES = 200;

export interface SiteRun {
  id: string;
  status: AuditJobStatus;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  score: number | null;
  pagesDone: number;
  pagesTotal: number;
  error: string | null;
}

export interface SiteRecord {
  id: string;
  name: string;
  url: string;
  config: SiteConfig;
  createdAt: string;
  updatedAt: string;
  latestRun: SiteRun | null;
  lastCompleted: SiteRun | null;
  schedule: ScheduleOutRecord | null;
}

export class TooManySitesError extends Error {}

const RUN_FIELDS = (alias: string) => `json_build_object(
  'id', ${alias}.id, 'status', ${alias}.status, 'createdAt', ${isoUtc(`${alias}.created_at`)},
  'startedAt', ${isoUtc(`${alias}.started_at`)}, 'finishedAt', ${isoUtc(`${alias}.finished_at`)},
  'score', (${alias}.result->>'score')::float8, 'pagesDone', ${alias}.pages_done,
  'pagesTotal', CASE WHEN ${alias}.status = 'completed' THEN ${alias}.pages_done
    WHEN (${alias}.config->'crawl'->>'enabled')::boolean THEN (${alias}.config->'crawl'->>'maxPages')::int ELSE 1 END,
  'error', ${alias}.error)`;

/** A site with its newest run, its newest completed run and its schedule, in one read. */
const SELECT = `SELECT s.id, s.name, s.url, s.config, ${isoUtc('s.created_at')} AS created_at, ${isoUtc('s.updated_at')} AS updated_at,
  (SELECT ${RUN_FIELDS('j')} FROM jobs j WHERE j.site_id = s.id ORDER BY j.seq DESC LIMIT 1) AS latest_run,
  (SELECT ${RUN_FIELDS('j')} FROM jobs j WHERE j.site_id = s.id AND j.status = 'completed' ORDER BY j.seq DESC LIMIT 1) AS last_completed,
  ${SCHEDULE_FIELDS('sc')}
  FROM sites s LEFT JOIN schedules sc ON sc.site_id = s.id`;

interface Row extends ScheduleRow {
  id: string;
  name: string;
  url: string;
  config: SiteConfig;
  created_at: string;
  updated_at: string;
  latest_run: SiteRun | null;
  last_completed: SiteRun | null;
}

const toRecord = (row: Row): SiteRecord => ({
  id: row.id,
  name: row.name,
  url: row.url,
  config: row.config,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  latestRun: row.latest_run,
  lastCompleted: row.last_completed,
  schedule: scheduleOut(row),
});

export async function createSite(
  db: Database,
  owner: string,
  input: { name: string; url: string; config: SiteConfig },
): Promise<SiteRecord> {
  const id = await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`audit-sites:${owner}`]);
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM sites WHERE owner = $1', [owner]);
    if (rows[0]!.n >= MAX_SITES)
      throw new TooManySitesError(`this credential already has ${MAX_SITES} sites, the most it may; delete one first`);
    const inserted = await tx.query<{ id: string }>(
      'INSERT INTO sites (id, owner, name, url, config) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [randomUUID(), owner, input.name, input.url, JSON.stringify(input.config)],
    );
    return inserted.rows[0]!.id;
  });
  return (await getSite(db, owner, id))!;
}

export async function getSite(db: Queryable, owner: string, id: string): Promise<SiteRecord | null> {
  const { rows } = await db.query<Row>(`${SELECT} WHERE s.id = $1 AND s.owner = $2`, [id, owner]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The owner's sites, by name (people look a site up by what they call it). */
export async function listSites(db: Queryable, owner: string): Promise<SiteRecord[]> {
  const { rows } = await db.query<Row>(`${SELECT} WHERE s.owner = $1 ORDER BY lower(s.name), s.seq`, [owner]);
  return rows.map(toRecord);
}

export async function updateSite(
  db: Queryable,
  owner: string,
  id: string,
  input: { name: string; url: string; config: SiteConfig },
): Promise<SiteRecord | null> {
  const { rowCount } = await db.query(
    'UPDATE sites SET name = $3, url = $4, config = $5, updated_at = now() WHERE id = $1 AND owner = $2',
    [id, owner, input.name, input.url, JSON.stringify(input.config)],
  );
  return rowCount === 1 ? getSite(db, owner, id) : null;
}

/** Deletes the site, its schedule and notification settings; its runs stay, as jobs of the credential. */
export async function deleteSite(db: Queryable, owner: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sites WHERE id = $1 AND owner = $2', [id, owner]);
  return rowCount === 1;
}
