import { CommandFailure, UsageError, flag, str, type Command } from '../../kit/cli-runner.ts';
import type { Database } from '../../kit/db.ts';
import { announceInvalidation } from '../../kit/invalidation.ts';
import type { CommandIO } from '../../kit/service.ts';
import {
  COMMAND_ACTOR,
  ErasureConflictError,
  ErasureInputError,
  ErasureNotFoundError,
  liftErasureSuppression,
  listErasures,
  requestErasure,
  type Erasure,
} from './store.ts';
import { SUPPRESSIONS_CACHE } from './suppressions.ts';
import { getProject } from '../projects/store.ts';

/** The erasure store's refusals, as the CLI runner's errors (exit 2 for a bad USER_ID, else 1). */
export function classifyErasureError(err: unknown): CommandFailure | UsageError | undefined {
  if (err instanceof ErasureInputError) return new UsageError(err.message);
  if (err instanceof ErasureNotFoundError || err instanceof ErasureConflictError)
    return new CommandFailure(err.message);
  return undefined;
}

function erasureLine(e: Erasure): string {
  const suppression = e.suppress
    ? e.suppressed
      ? '  suppressed'
      : `  suppression lifted ${e.suppression_lifted_at}`
    : '';
  return `${e.id}  ${e.status.padEnd(9)}  deleted=${e.deleted}  user ${e.user_id === null ? '(not kept)' : JSON.stringify(e.user_id)}${suppression}  requested by ${e.requested_by} at ${e.requested_at}`;
}

/**
 * `platform ingest erasures …`: the admin API's erasures (docs/ingest.md, "Erasing a user's events") through the same
 * store functions, recorded with the requester `command`. The running instances' workers take a new erasure at their
 * next poll (2 s); a suppression made or lifted here is announced to them over Redis when REDIS_URL is set, as a
 * revoked key is, else they read it within INGEST_KEY_CACHE_SECONDS — the erasure's completion waits that long anyway.
 */
export function erasureCommands(ctx: {
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  redisUrl: string | undefined;
  cacheSeconds: number;
  /** The key of the users' digests (digest.ts), made when a command runs (the usage listing has no configuration). */
  digestKey(): Buffer;
}): Command[] {
  /** Tells the running instances the project's suppressed users changed; a note for the output when it could not. */
  const announce = async (projectId: string, io: CommandIO): Promise<string[]> => {
    if (!ctx.redisUrl) return [`running services apply it within INGEST_KEY_CACHE_SECONDS (${ctx.cacheSeconds} s)`];
    try {
      await announceInvalidation({
        redisUrl: ctx.redisUrl,
        service: 'ingest',
        cache: SUPPRESSIONS_CACHE,
        key: projectId,
      });
      return [];
    } catch (err) {
      io.err(`running instances could not be told at once: ${(err as Error).message}`);
      return [`running services apply it within INGEST_KEY_CACHE_SECONDS (${ctx.cacheSeconds} s)`];
    }
  };
  return [
    {
      path: ['erasures', 'request'],
      synopsis: 'PROJECT USER_ID [--suppress]',
      summary: 'erase every stored event of the project whose user.id is USER_ID (in the background)',
      details: [
        'USER_ID      the user.id exactly as events carry it (capitals and spaces included)',
        "--suppress   also drop the user's later events on arrival, until lifted (erasures lift)",
        'recorded with requested_by "command"; follow it with erasures list',
      ],
      options: { suppress: { type: 'boolean' } },
      exports: (e: { id?: string }) => ({ ERASURE_ID: e.id }),
      positionals: { min: 2, max: 2 },
      run: ({ values, positionals, result, io }) =>
        ctx.withDatabase(async (db) => {
          const suppress = flag(values, 'suppress');
          const erasure = await requestErasure(db, {
            projectId: positionals[0]!,
            userId: positionals[1]!,
            suppress,
            requestedBy: COMMAND_ACTOR,
            digestKey: ctx.digestKey(),
          });
          const notes = suppress ? await announce(erasure.project_id, io) : [];
          result(erasure, [
            `requested erasure ${erasure.id} of project ${erasure.project_id}${suppress ? ", suppressing the user's later events" : ''}`,
            ...notes,
          ]);
        }),
    },
    {
      path: ['erasures', 'list'],
      synopsis: 'PROJECT [--user USER_ID]',
      summary: "a project's erasures, newest first, with how far each got",
      details: ["--user USER_ID   only that user's, found by the digest a completed erasure keeps instead of the id"],
      options: { user: { type: 'string' } },
      positionals: { min: 1, max: 1 },
      run: ({ values, positionals, result }) =>
        ctx.withDatabase(async (db) => {
          const projectId = positionals[0]!;
          if (!(await getProject(db, projectId))) throw new CommandFailure(`no project ${projectId}`);
          const userId = str(values, 'user');
          const user = userId === undefined ? undefined : { userId, digestKey: ctx.digestKey() };
          const items: Erasure[] = [];
          let after: [string, string] | undefined;
          for (;;) {
            const page = await listErasures(db, projectId, { limit: 500, after }, user);
            items.push(...page.map(({ position: _, ...e }) => e));
            if (page.length < 500) break;
            after = page.at(-1)!.position;
          }
          result({ items }, items.length ? items.map(erasureLine) : [`project ${projectId} has no erasures`]);
        }),
    },
    {
      path: ['erasures', 'lift'],
      synopsis: 'PROJECT ERASURE_ID',
      summary: "lift the suppression of the erasure's user: the user's new events are stored again",
      details: ['ends every suppression of that user.id in the project; the erased events stay erased'],
      positionals: { min: 2, max: 2 },
      run: ({ positionals, result, io }) =>
        ctx.withDatabase(async (db) => {
          const [projectId, id] = positionals as [string, string];
          const { erasure, lifted } = await liftErasureSuppression(db, projectId, id, COMMAND_ACTOR);
          const notes = lifted ? await announce(projectId, io) : [];
          result(erasure, [
            lifted ? `lifted the suppression of erasure ${id}` : `erasure ${id}'s suppression was already lifted`,
            ...notes,
          ]);
        }),
    },
  ];
}
