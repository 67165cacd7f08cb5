import type { Database } from '../../kit/db.ts';
import { CommandFailure, UsageError, flag, str, strs, type Command } from '../../kit/cli-runner.ts';
import { listDeadLetters, replayDeadLetters } from './dead-letters/store.ts';
import {
  createDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  updateDestination,
  DestinationConflictError,
  DestinationInputError,
  DestinationNotFoundError,
  type DestinationView,
} from './destinations/store.ts';
import type { ForwardingGuard } from './guard.ts';

export interface ForwardingCommandContext {
  /** Runs `fn` on the ingest database, migrated, and closes it. */
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  secretKey: Buffer;
  /** The same check of a URL as the admin API's (INGEST_DESTINATION_ALLOW_HOSTS); built when a command runs (the usage listing has no configuration). */
  guard(): ForwardingGuard;
  env: NodeJS.ProcessEnv;
}

/** The forwarding store's refusals, as the CLI runner's failures (exit 1). */
export function classifyForwardingError(err: unknown): CommandFailure | undefined {
  if (
    err instanceof DestinationInputError ||
    err instanceof DestinationNotFoundError ||
    err instanceof DestinationConflictError
  )
    return new CommandFailure(err.message);
  return undefined;
}

function pairs(values: string[] | undefined, what: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const i = v.indexOf('=');
    if (i <= 0) throw new UsageError(`--${what} expects KEY=VALUE, got ${JSON.stringify(v.split('=')[0])}`);
    const key = v.slice(0, i);
    let value = v.slice(i + 1);
    // KEY=env:VAR keeps a secret out of the shell history and the process list.
    if (value.startsWith('env:')) {
      const name = value.slice(4);
      const fromEnv = env[name];
      if (fromEnv === undefined || fromEnv === '')
        throw new UsageError(`--${what} ${key}: environment variable ${name} is not set`);
      value = fromEnv;
    }
    out[key] = value;
  }
  return out;
}

// A webhook URL is often a secret itself: env:VAR keeps it out of the shell history like a credential.
function urlArg(value: string, what: string, env: NodeJS.ProcessEnv): string {
  if (!value.startsWith('env:')) return value;
  const name = value.slice(4);
  const fromEnv = env[name];
  if (fromEnv === undefined || fromEnv === '') throw new UsageError(`${what}: environment variable ${name} is not set`);
  return fromEnv;
}

function settingsOf(raw: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(raw).map(([k, v]) => [k, /^\d+$/.test(v) && k !== 'project_id' ? Number(v) : v]),
  );
}

function show(d: DestinationView): string {
  return `${d.id}  ${d.kind.padEnd(9)}  ${d.enabled ? 'enabled ' : 'disabled'}  ${d.name}  ${d.base_url}  pending=${d.pending} dead_letters=${d.dead_letters}  credentials: ${d.credential_fields.join(', ') || 'none'}`;
}

function destinationJson(d: DestinationView): Record<string, unknown> {
  return { ...d };
}

const integer = (v: string, what: string, min: number, max: number) => {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new UsageError(`${what} expects an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return Number(v);
};

/** `platform ingest destinations ...` and `platform ingest dead-letters ...`. */
export function forwardingCommands(ctx: ForwardingCommandContext): Command[] {
  const toggle = (action: 'enable' | 'disable'): Command => ({
    path: ['destinations', action],
    synopsis: 'ID',
    summary: `turn delivery to a destination ${action === 'enable' ? 'on' : 'off'}`,
    positionals: { min: 1, max: 1 },
    run: ({ positionals, result }) =>
      ctx.withDatabase(async (db) => {
        const d = await updateDestination(
          db,
          ctx.secretKey,
          positionals[0]!,
          { enabled: action === 'enable' },
          ctx.guard(),
        );
        result(destinationJson(d), [show(d)]);
      }),
  });
  return [
    {
      path: ['destinations', 'create'],
      synopsis:
        'PROJECT --name N --kind webhook|posthog|segment|mixpanel|amplitude [--base-url URL|env:VAR] [--credential K=V|K=env:VAR ...] [--setting K=V ...] [--disabled]',
      summary: "add a destination events of a project are forwarded to (a webhook's signing secret is shown once)",
      details: ['env:VAR reads a URL or credential from the environment, keeping it out of the shell history'],
      options: {
        name: { type: 'string' },
        kind: { type: 'string' },
        'base-url': { type: 'string' },
        credential: { type: 'string', multiple: true },
        setting: { type: 'string', multiple: true },
        disabled: { type: 'boolean' },
      },
      required: ['name', 'kind'],
      positionals: { min: 1, max: 1 },
      run: ({ values, positionals, result }) => {
        const credentials = pairs(strs(values, 'credential'), 'credential', ctx.env);
        const settings = settingsOf(pairs(strs(values, 'setting'), 'setting', ctx.env));
        const baseUrl = str(values, 'base-url');
        return ctx.withDatabase(async (db) => {
          const { destination, shownOnce } = await createDestination(
            db,
            ctx.secretKey,
            {
              projectId: positionals[0]!,
              name: str(values, 'name')!,
              kind: str(values, 'kind')!,
              baseUrl: baseUrl === undefined ? undefined : urlArg(baseUrl, '--base-url', ctx.env),
              credentials,
              settings,
              enabled: !flag(values, 'disabled'),
            },
            ctx.guard(),
          );
          result({ ...destinationJson(destination), ...(shownOnce?.secret ? { secret: shownOnce.secret } : {}) }, [
            show(destination),
            ...(shownOnce?.secret ? [`webhook signing secret (shown once, keep it now): ${shownOnce.secret}`] : []),
          ]);
        });
      },
    },
    {
      path: ['destinations', 'list'],
      synopsis: 'PROJECT',
      summary: "list a project's destinations (credentials are never shown, URLs only up to the host)",
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result }) =>
        ctx.withDatabase(async (db) => {
          const list = await listDestinations(db, positionals[0]!);
          result(
            { items: list.map(destinationJson) },
            list.length ? list.map(show) : [`project ${positionals[0]} has no destinations`],
          );
        }),
    },
    {
      path: ['destinations', 'set-url'],
      synopsis: 'ID URL|env:VAR',
      summary: 'point a destination at another URL (kept sealed like a credential)',
      positionals: { min: 2, max: 2 },
      run: ({ positionals, result }) => {
        const url = urlArg(positionals[1]!, 'URL', ctx.env);
        return ctx.withDatabase(async (db) => {
          const d = await updateDestination(db, ctx.secretKey, positionals[0]!, { baseUrl: url }, ctx.guard());
          result(destinationJson(d), [show(d)]);
        });
      },
    },
    toggle('enable'),
    toggle('disable'),
    {
      path: ['destinations', 'delete'],
      synopsis: 'ID',
      summary: 'delete a destination, its pending events and dead letters',
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result }) =>
        ctx.withDatabase(async (db) => {
          const id = positionals[0]!;
          if (!(await deleteDestination(db, id))) throw new CommandFailure(`no destination ${id}`);
          result({ id, deleted: true }, [`deleted ${id}`]);
        }),
    },
    {
      path: ['dead-letters', 'list'],
      synopsis: 'DESTINATION [--limit N] [--after ID]',
      summary: 'events a destination gave up on, oldest first',
      options: { limit: { type: 'string' }, after: { type: 'string' } },
      positionals: { min: 1, max: 1 },
      run: ({ values, positionals, result }) => {
        const limitArg = str(values, 'limit');
        const afterArg = str(values, 'after');
        const limit = limitArg === undefined ? 100 : integer(limitArg, '--limit', 1, 10_000);
        const after = afterArg === undefined ? undefined : integer(afterArg, '--after', 0, Number.MAX_SAFE_INTEGER);
        const destinationId = positionals[0]!;
        return ctx.withDatabase(async (db) => {
          if (!(await getDestination(db, destinationId))) throw new CommandFailure(`no destination ${destinationId}`);
          const rows = await listDeadLetters(db, destinationId, { limit, after });
          result(
            { items: rows },
            rows.length
              ? rows.map(
                  (r) =>
                    `${r.id}  event ${r.event_id}  attempts=${r.attempts}  first failed ${r.first_failed_at}  dead ${r.dead_at}  ${r.reason}`,
                )
              : [`destination ${destinationId} has no dead letters${after ? ` after ${after}` : ''}`],
          );
        });
      },
    },
    {
      path: ['dead-letters', 'replay'],
      synopsis: 'DESTINATION [--id N ...]',
      summary: 'queue dead letters for delivery again (all by default)',
      options: { id: { type: 'string', multiple: true } },
      positionals: { min: 1, max: 1 },
      run: ({ values, positionals, result }) => {
        const ids = strs(values, 'id')?.map((v) => integer(v, '--id', 1, Number.MAX_SAFE_INTEGER));
        const destinationId = positionals[0]!;
        return ctx.withDatabase(async (db) => {
          if (!(await getDestination(db, destinationId))) throw new CommandFailure(`no destination ${destinationId}`);
          const n = await replayDeadLetters(db, destinationId, ids);
          result({ destination_id: destinationId, queued: n }, [
            `queued ${n} dead letter${n === 1 ? '' : 's'} of ${destinationId} for delivery again`,
          ]);
        });
      },
    },
  ];
}
