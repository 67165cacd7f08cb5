import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken } from '../../kit/crypto.ts';
import { positioned, type PageRequest, type Positioned } from '../../kit/paging.ts';
import { isoUtc } from '../../kit/sql.ts';
import { userDigest } from './digest.ts';

/** An erasure as the admin API answers it (schemas.ts). */
export interface Erasure {
  id: string;
  project_id: string;
  /** Null once completed with no suppression holding: the record then keeps only the user's digest (migration 014). */
  user_id: string | null;
  suppress: boolean;
  suppressed: boolean;
  status: 'pending' | 'running' | 'completed';
  deleted: number;
  requested_by: string;
  requested_at: string;
  started_at: string | null;
  finished_at: string | null;
  suppression_lifted_at: string | null;
}

/** A `user.id` longer than this cannot be erased by the API: far past any id an SDK or a vendor makes. */
export const MAX_ERASURE_USER_LENGTH = 1_024;
/**
 * Users one project may have suppressed at once: every instance holds them all in memory (suppressions.ts), so the
 * list must stay small; Segment and PostHog also bound bulk deletion.
 */
export const MAX_SUPPRESSED_USERS = 10_000;

/** A `user.id` that cannot be erased as given (the API answers 400, the CLI exits 2). */
export class ErasureInputError extends Error {}
/** No such project, or no such erasure in it (404, exit 1). */
export class ErasureNotFoundError extends Error {}
/** Refused as things stand (409, exit 1). */
export class ErasureConflictError extends Error {}
/** The project already suppresses MAX_SUPPRESSED_USERS users. */
export class SuppressionLimitError extends ErasureConflictError {}

/** Who asked through `platform ingest erasures …`: an operator on the server. */
export const COMMAND_ACTOR = 'command';

const COLUMNS = `id, project_id, user_id, suppress, (suppress AND suppression_lifted_at IS NULL) AS suppressed, status,
  deleted::float8 AS deleted, requested_by, ${isoUtc('requested_at')} AS requested_at,
  ${isoUtc('started_at')} AS started_at, ${isoUtc('finished_at')} AS finished_at,
  ${isoUtc('suppression_lifted_at')} AS suppression_lifted_at`;

/**
 * Records an erasure for the worker, pending; undefined when there is no such project. Erasures of one project are
 * made one at a time (the project's row is locked), so the limit of suppressed users holds however many arrive at once.
 */
export async function createErasure(
  db: Database,
  input: { projectId: string; userId: string; suppress: boolean; requestedBy: string; digestKey: Buffer },
): Promise<Erasure | undefined> {
  const digest = userDigest(input.digestKey, input.projectId, input.userId);
  return db.transaction(async (tx) => {
    const project = await tx.query('SELECT 1 FROM projects WHERE id = $1 FOR NO KEY UPDATE', [input.projectId]);
    if (project.rowCount === 0) return undefined;
    if (input.suppress) {
      const { rows } = await tx.query<{ others: number }>(
        `SELECT count(DISTINCT user_digest)::int AS others FROM erasures
         WHERE project_id = $1 AND suppress AND suppression_lifted_at IS NULL AND user_digest <> $2`,
        [input.projectId, digest],
      );
      if (rows[0]!.others >= MAX_SUPPRESSED_USERS)
        throw new SuppressionLimitError(
          `this project already suppresses ${MAX_SUPPRESSED_USERS.toLocaleString('en')} users, the most it may: lift some suppressions first`,
        );
    }
    const { rows } = await tx.query<Erasure>(
      `INSERT INTO erasures (id, project_id, user_id, user_digest, suppress, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [`ers_${randomToken(9)}`, input.projectId, input.userId, digest, input.suppress, input.requestedBy],
    );
    return rows[0];
  });
}

/**
 * Records an erasure as the admin API and the CLI ask for it, with the one check of its `user.id` both go through
 * (the API's schema states the same bounds for its document).
 */
export async function requestErasure(
  db: Database,
  input: { projectId: string; userId: string; suppress: boolean; requestedBy: string; digestKey: Buffer },
): Promise<Erasure> {
  const { userId } = input;
  if (userId.length === 0) throw new ErasureInputError('user_id: must not be empty');
  if (userId.length > MAX_ERASURE_USER_LENGTH)
    throw new ErasureInputError(`user_id: must be at most ${MAX_ERASURE_USER_LENGTH.toLocaleString('en')} characters`);
  // PostgreSQL's text cannot hold half a surrogate pair, and no stored event carries one.
  if (/\p{Cs}/u.test(userId)) throw new ErasureInputError('user_id: must not contain an unpaired surrogate');
  const erasure = await createErasure(db, input);
  if (!erasure) throw new ErasureNotFoundError(`no project ${input.projectId}`);
  return erasure;
}

/**
 * Lifts the suppression of an erasure's user, as the admin API and the CLI ask for it: refused when the erasure
 * suppressed nobody; lifting again answers the erasure as it is. `lifted`: whether a suppression ended now (the
 * instances' caches are then to be told).
 */
export async function liftErasureSuppression(
  db: Queryable,
  projectId: string,
  id: string,
  by: string,
): Promise<{ erasure: Erasure; lifted: boolean }> {
  const missing = () => new ErasureNotFoundError(`no erasure ${id} in project ${projectId}`);
  const erasure = await getErasure(db, projectId, id);
  if (!erasure) throw missing();
  if (!erasure.suppress) throw new ErasureConflictError(`erasure ${id} did not suppress its user: nothing to lift`);
  const lifted = await liftSuppression(db, projectId, id, by);
  const now = await getErasure(db, projectId, id);
  if (!now) throw missing();
  return { erasure: now, lifted: (lifted ?? 0) > 0 };
}

/**
 * A project's erasures, newest first; with `user`, only those of that user id, found by its digest (the id itself is
 * gone from completed ones): "was this person erased?".
 */
export async function listErasures(
  db: Queryable,
  projectId: string,
  page: PageRequest,
  user?: { userId: string; digestKey: Buffer },
): Promise<Positioned<Erasure>[]> {
  const digest = user ? userDigest(user.digestKey, projectId, user.userId) : null;
  const { rows } = await db.query<Erasure & { sort_at: string }>(
    `SELECT ${COLUMNS}, requested_at::text AS sort_at FROM erasures
     WHERE project_id = $1 AND ($2::timestamptz IS NULL OR (requested_at, id) < ($2::timestamptz, $3::text))
       AND ($5::text IS NULL OR user_digest = $5)
     ORDER BY requested_at DESC, id DESC LIMIT $4`,
    [projectId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit, digest],
  );
  return positioned(rows);
}

export async function getErasure(db: Queryable, projectId: string, id: string): Promise<Erasure | undefined> {
  const { rows } = await db.query<Erasure>(`SELECT ${COLUMNS} FROM erasures WHERE project_id = $1 AND id = $2`, [
    projectId,
    id,
  ]);
  return rows[0];
}

/**
 * Lifts the suppression of the erasure's user: every suppression of that user in the project ends, whichever erasure
 * asked for it, since the user is either let through or not. Answers how many ended (0: none held); undefined when
 * there is no such erasure.
 */
export async function liftSuppression(
  db: Queryable,
  projectId: string,
  id: string,
  by: string,
): Promise<number | undefined> {
  const { rows } = await db.query<{ found: boolean; lifted: number }>(
    `WITH target AS (SELECT user_digest FROM erasures WHERE project_id = $1 AND id = $2),
     lifted AS (
       UPDATE erasures e SET suppression_lifted_at = now(), suppression_lifted_by = $3,
         -- A completed erasure no longer needs the id once nothing is matched by it.
         user_id = CASE WHEN e.status = 'completed' THEN NULL ELSE e.user_id END
       FROM target t
       WHERE e.project_id = $1 AND e.user_digest = t.user_digest AND e.suppress AND e.suppression_lifted_at IS NULL
       RETURNING e.id)
     SELECT EXISTS (SELECT 1 FROM target) AS found, (SELECT count(*) FROM lifted)::int AS lifted`,
    [projectId, id, by],
  );
  return rows[0]!.found ? rows[0]!.lifted : undefined;
}

/**
 * Gives erasures recorded before migration 014 their digest, and clears the ids those no longer need (completed, no
 * suppression holding): at every start, a probe of a partial index that finds nothing once done.
 */
export async function sealErasures(db: Queryable, digestKey: Buffer): Promise<number> {
  const { rows } = await db.query<{ id: string; project_id: string; user_id: string }>(
    'SELECT id, project_id, user_id FROM erasures WHERE user_digest IS NULL',
  );
  for (const r of rows)
    await db.query(
      `UPDATE erasures SET user_digest = $2,
         user_id = CASE WHEN status = 'completed' AND NOT (suppress AND suppression_lifted_at IS NULL) THEN NULL
                   ELSE user_id END
       WHERE id = $1`,
      [r.id, userDigest(digestKey, r.project_id, r.user_id)],
    );
  return rows.length;
}

/** The users suppressed now, by project (only projects with some). */
export async function loadSuppressions(db: Queryable): Promise<Map<string, Set<string>>> {
  // A suppression holding keeps its clear id (migration 014's check): arriving events are matched by a Set lookup of
  // it, not by a digest each (docs/decisions.md).
  const { rows } = await db.query<{ project_id: string; user_id: string }>(
    'SELECT project_id, user_id FROM erasures WHERE suppress AND suppression_lifted_at IS NULL AND user_id IS NOT NULL',
  );
  const byProject = new Map<string, Set<string>>();
  for (const r of rows) {
    const users = byProject.get(r.project_id) ?? new Set<string>();
    users.add(r.user_id);
    byProject.set(r.project_id, users);
  }
  return byProject;
}
