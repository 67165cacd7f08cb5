import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { Database, Queryable } from '../../kit/db.ts';
import { toPage } from '../../kit/paging.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { AuditConfig, AuditJobStatus, AuditResult, AuditStats } from '../result/types.ts';

export interface JobRecord {
  id: string;
  status: AuditJobStatus;
  url: string;
  /** The branch a CI run said it audited; null for other jobs. */
  branch: string | null;
  config: AuditConfig;
  attempts: number;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The start page's title, once completed (text from the audited site). */
  title: string | null;
  /** The result's score and stats once completed, so a list need not read results. */
  score: number | null;
  stats: AuditStats | null;
  /** Pages recorded so far (audited or failed), of at most `config.crawl.maxPages` (1 without crawling). */
  pagesDone: number;
  result: AuditResult | null;
}

interface Row {
  id: string;
  status: AuditJobStatus;
  url: string;
  branch: string | null;
  config: AuditConfig;
  attempts: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  title: string | null;
  score: number | null;
  stats: AuditStats | null;
  pages_done: number;
  result?: AuditResult | null;
  seq?: number | string;
}

function toRecord(row: Row): JobRecord {
  return {
    id: row.id,
    status: row.status,
    url: row.url,
    branch: row.branch,
    config: row.config,
    attempts: row.attempts,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    title: row.title,
    score: row.score,
    stats: row.stats,
    pagesDone: row.pages_done,
    result: row.result ?? null,
  };
}

/** PostgreSQL's jsonb refuses the NUL character; page text could in theory carry one. */
function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' && v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v,
  );
}

const SUMMARY = `id, status, url, branch, config, attempts, error, ${isoUtc('created_at')} AS created_at,
  ${isoUtc('started_at')} AS started_at, ${isoUtc('finished_at')} AS finished_at, title, score, stats, pages_done, seq`;

export class QueueFullError extends Error {}
/** A site's run is queued while another of the site's runs is pending or running. */
export class SiteBusyError extends Error {}

/** Stores a pending job, unless its owner already has `maxQueued` pending or running (checked under a per-owner lock). */
export async function createJob(db: Database, input: NewJob): Promise<JobRecord> {
  return db.transaction((tx) => insertJob(tx, input));
}

export interface NewJob {
  owner: string;
  url: string;
  config: AuditConfig;
  branch?: string | null;
  /** The site the run is for (run now, or its schedule). */
  siteId?: string | null;
  maxQueued: number;
}

/** createJob within the caller's transaction (a schedule queues its run in the transaction that advances it). */
export async function insertJob(tx: Queryable, input: NewJob): Promise<JobRecord> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`audit-owner:${input.owner}`]);
  const { rows } = await tx.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE owner = $1 AND status IN ('pending', 'running')",
    [input.owner],
  );
  if (rows[0]!.n >= input.maxQueued)
    throw new QueueFullError(
      `this credential already has ${rows[0]!.n} audits pending or running (at most ${input.maxQueued}); wait for some to finish`,
    );
  // Under the owner's lock, so two clicks (or a click and a schedule) cannot both find the site idle.
  if (input.siteId) {
    const busy = await tx.query("SELECT 1 FROM jobs WHERE site_id = $1 AND status IN ('pending', 'running') LIMIT 1", [
      input.siteId,
    ]);
    if (busy.rows.length > 0)
      throw new SiteBusyError('a run of this site is already pending or running; wait for it to end');
  }
  const inserted = await tx.query<Row>(
    `INSERT INTO jobs (id, owner, url, config, branch, site_id, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending') RETURNING ${SUMMARY}`,
    [randomUUID(), input.owner, input.url, JSON.stringify(input.config), input.branch ?? null, input.siteId ?? null],
  );
  return toRecord(inserted.rows[0]!);
}

export async function getJob(db: Queryable, owner: string, id: string): Promise<JobRecord | null> {
  const { rows } = await db.query<Row>(`SELECT ${SUMMARY}, result FROM jobs WHERE id = $1 AND owner = $2`, [id, owner]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A page of jobs ends at a job's insertion sequence; the list's cursor holds it. */
export const JOB_CURSOR = Type.Tuple([Type.Integer({ minimum: 0 })]);

/** A page of the owner's jobs, newest first, without results; `before` is the last seen job's `seq` (JOB_CURSOR). */
export async function listJobs(
  db: Queryable,
  owner: string,
  options: {
    limit: number;
    before: number | null;
    status: AuditJobStatus | null;
    branch: string | null;
    url: string | null;
  },
): Promise<{ items: JobRecord[]; next: string | null }> {
  const { rows } = await db.query<Row>(
    `SELECT ${SUMMARY} FROM jobs WHERE owner = $1 AND ($2::bigint IS NULL OR seq < $2) AND ($3::text IS NULL OR status = $3)
       AND ($5::text IS NULL OR branch = $5) AND ($6::text IS NULL OR url = $6) ORDER BY seq DESC LIMIT $4`,
    [owner, options.before, options.status, options.limit + 1, options.branch, options.url],
  );
  return toPage(rows, options.limit, (row) => [Number(row.seq)], toRecord);
}

/** Cancels a pending or running job of the owner; null when there is no such job; the record as it is when already finished. */
export async function cancelJob(
  db: Queryable,
  owner: string,
  id: string,
): Promise<{ record: JobRecord; changed: boolean } | null> {
  const { rows } = await db.query<Row>(
    `UPDATE jobs SET status = 'cancelled', finished_at = now(), worker = NULL, lease_until = NULL
     WHERE id = $1 AND owner = $2 AND status IN ('pending', 'running') RETURNING ${SUMMARY}`,
    [id, owner],
  );
  if (rows[0]) return { record: toRecord(rows[0]), changed: true };
  const current = await getJob(db, owner, id);
  return current ? { record: current, changed: false } : null;
}

export interface ClaimedJob {
  id: string;
  owner: string;
  url: string;
  config: AuditConfig;
  attempts: number;
}

/**
 * Takes the oldest claimable job: pending, or running with its lease passed (its worker died). Jobs whose
 * lease passed after their last allowed attempt end `failed` instead. SKIP LOCKED lets instances share the queue.
 */
export async function claimJob(
  db: Queryable,
  worker: string,
  leaseSeconds: number,
  maxAttempts: number,
): Promise<ClaimedJob | null> {
  await db.query(
    `UPDATE jobs SET status = 'failed', finished_at = now(), worker = NULL, lease_until = NULL,
       error = 'the audit stopped ' || attempts || ' times without finishing (its worker died or lost its lease)'
     WHERE status = 'running' AND lease_until < now() AND attempts >= $1`,
    [maxAttempts],
  );
  const { rows } = await db.query<ClaimedJob>(
    `UPDATE jobs SET status = 'running', worker = $1, lease_until = now() + make_interval(secs => $2), attempts = attempts + 1,
       started_at = coalesce(started_at, now()), pages_done = 0
     WHERE id = (
       SELECT id FROM jobs WHERE status = 'pending' OR (status = 'running' AND lease_until < now())
       ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 1
     )
     RETURNING id, owner, url, config, attempts`,
    [worker, leaseSeconds],
  );
  return rows[0] ?? null;
}

/** Extends the lease; false when the job is no longer this worker's running job (cancelled, or taken over). */
export async function renewLease(db: Queryable, id: string, worker: string, leaseSeconds: number): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE jobs SET lease_until = now() + make_interval(secs => $3) WHERE id = $1 AND worker = $2 AND status = 'running'",
    [id, worker, leaseSeconds],
  );
  return rowCount === 1;
}

/** How many pages this worker's running job has recorded so far. */
export async function recordProgress(db: Queryable, id: string, worker: string, pagesDone: number): Promise<void> {
  await db.query("UPDATE jobs SET pages_done = $3 WHERE id = $1 AND worker = $2 AND status = 'running'", [
    id,
    worker,
    pagesDone,
  ]);
}

/** Stores the result, only if the job is still this worker's: a job completes once. */
export async function completeJob(db: Queryable, id: string, worker: string, result: AuditResult): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET status = 'completed', result = $3, error = NULL, finished_at = now(), worker = NULL, lease_until = NULL,
       title = $4, score = $5, stats = $6, pages_done = $7
     WHERE id = $1 AND worker = $2 AND status = 'running'`,
    [
      id,
      worker,
      storableJson(result),
      result.pages[0]?.title?.replaceAll('\0', '\uFFFD') ?? null,
      result.score,
      JSON.stringify(result.stats),
      result.stats.totalPages,
    ],
  );
  return rowCount === 1;
}

/** After a failed attempt: back to the queue while attempts remain and a retry can help, else `failed` with the reason. */
export async function failAttempt(
  db: Queryable,
  id: string,
  worker: string,
  reason: string,
  retry: boolean,
): Promise<void> {
  await db.query(
    `UPDATE jobs SET status = CASE WHEN $4 THEN 'pending' ELSE 'failed' END, error = $3,
       finished_at = CASE WHEN $4 THEN NULL ELSE now() END, worker = NULL, lease_until = NULL
     WHERE id = $1 AND worker = $2 AND status = 'running'`,
    [id, worker, reason, retry],
  );
}

/** A job this worker gives back unfinished at shutdown: pending again, the attempt not counted. */
export async function releaseJob(db: Queryable, id: string, worker: string): Promise<void> {
  await db.query(
    "UPDATE jobs SET status = 'pending', worker = NULL, lease_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND worker = $2 AND status = 'running'",
    [id, worker],
  );
}

export async function queueCounts(db: Queryable): Promise<{ pending: number; running: number }> {
  const { rows } = await db.query<{ status: string; n: number }>(
    "SELECT status, count(*)::int AS n FROM jobs WHERE status IN ('pending', 'running') GROUP BY status",
  );
  const of = (s: string) => rows.find((r) => r.status === s)?.n ?? 0;
  return { pending: of('pending'), running: of('running') };
}
