import { parseArgs } from 'node:util';
import type { Database } from '../../kit/db.ts';
import type { CommandIO } from '../../kit/service.ts';
import { listDeadLetters, replayDeadLetters } from './dead-letters/store.ts';
import {
  createDestination, deleteDestination, getDestination, listDestinations, updateDestination,
  DestinationConflictError, DestinationInputError, DestinationNotFoundError, type DestinationView,
} from './destinations/store.ts';

export const FORWARDING_USAGE = [
  'destinations create PROJECT --name N --kind webhook|posthog|segment|mixpanel|amplitude [--base-url URL|env:VAR] [--credential K=V|K=env:VAR ...] [--setting K=V ...] [--disabled]',
  'destinations list PROJECT        list a project\'s destinations (credentials are never shown, URLs only up to the host)',
  'destinations set-url ID URL|env:VAR   point a destination at another URL (kept sealed like a credential)',
  'destinations enable|disable ID   turn delivery to a destination on or off',
  'destinations delete ID           delete a destination, its pending events and dead letters',
  'dead-letters list DESTINATION [--limit N] [--after ID]',
  'dead-letters replay DESTINATION [--id N ...]   queue dead letters for delivery again (all by default)',
];

export interface ForwardingCommandContext {
  io: CommandIO;
  /** The ingest database, migrated; closed by the command when done. */
  openDatabase(): Promise<Database>;
  secretKey(): Buffer;
  env?: NodeJS.ProcessEnv;
}

class UsageError extends Error {}

/** `platform ingest destinations ...` and `platform ingest dead-letters ...`; returns the exit code. */
export async function forwardingCommand(args: string[], ctx: ForwardingCommandContext): Promise<number> {
  const [group, action, ...rest] = args;
  const { io } = ctx;
  let db: Database | undefined;
  const open = async () => (db ??= await ctx.openDatabase());
  try {
    if (group === 'destinations') return await destinations(action, rest, ctx, open);
    if (group === 'dead-letters') return await deadLetters(action, rest, ctx, open);
    throw new UsageError(`unknown command "${group ?? ''}"`);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(err as Error).message}\nusage:\n${FORWARDING_USAGE.map((u) => `  platform ingest ${u}`).join('\n')}`);
      return 2;
    }
    if (err instanceof DestinationInputError || err instanceof DestinationNotFoundError || err instanceof DestinationConflictError) {
      io.err(err.message);
      return 1;
    }
    throw err;
  } finally {
    await (db as Database | undefined)?.close();
  }
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
      if (fromEnv === undefined || fromEnv === '') throw new UsageError(`--${what} ${key}: environment variable ${name} is not set`);
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
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, /^\d+$/.test(v) && k !== 'project_id' ? Number(v) : v]));
}

function show(d: DestinationView): string {
  return `${d.id}  ${d.kind.padEnd(9)}  ${d.enabled ? 'enabled ' : 'disabled'}  ${d.name}  ${d.base_url}  pending=${d.pending} dead_letters=${d.dead_letters}  credentials: ${d.credential_fields.join(', ') || 'none'}`;
}

async function destinations(action: string | undefined, rest: string[], ctx: ForwardingCommandContext, open: () => Promise<Database>): Promise<number> {
  const { io } = ctx;
  switch (action) {
    case 'create': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          name: { type: 'string' },
          kind: { type: 'string' },
          'base-url': { type: 'string' },
          credential: { type: 'string', multiple: true },
          setting: { type: 'string', multiple: true },
          disabled: { type: 'boolean' },
        },
      });
      const [projectId] = positionals;
      if (!projectId || positionals.length > 1 || !values.name || !values.kind) throw new UsageError('destinations create needs PROJECT, --name and --kind');
      const credentials = pairs(values.credential, 'credential', ctx.env ?? process.env);
      const settings = settingsOf(pairs(values.setting, 'setting', ctx.env ?? process.env));
      const { destination, shownOnce } = await createDestination(await open(), ctx.secretKey(), {
        projectId, name: values.name, kind: values.kind, baseUrl: values['base-url'] === undefined ? undefined : urlArg(values['base-url'], '--base-url', ctx.env ?? process.env), credentials, settings, enabled: !values.disabled,
      });
      io.out(show(destination));
      if (shownOnce?.secret) io.out(`webhook signing secret (shown once, keep it now): ${shownOnce.secret}`);
      return 0;
    }
    case 'list': {
      const [projectId, ...extra] = rest;
      if (!projectId || extra.length) throw new UsageError('destinations list needs PROJECT');
      const list = await listDestinations(await open(), projectId);
      if (list.length === 0) io.out(`project ${projectId} has no destinations`);
      for (const d of list) io.out(show(d));
      return 0;
    }
    case 'enable':
    case 'disable': {
      const [id, ...extra] = rest;
      if (!id || extra.length) throw new UsageError(`destinations ${action} needs ID`);
      io.out(show(await updateDestination(await open(), ctx.secretKey(), id, { enabled: action === 'enable' })));
      return 0;
    }
    case 'set-url': {
      const [id, url, ...extra] = rest;
      if (!id || !url || extra.length) throw new UsageError('destinations set-url needs ID and URL (or env:VAR)');
      io.out(show(await updateDestination(await open(), ctx.secretKey(), id, { baseUrl: urlArg(url, 'URL', ctx.env ?? process.env) })));
      return 0;
    }
    case 'delete': {
      const [id, ...extra] = rest;
      if (!id || extra.length) throw new UsageError('destinations delete needs ID');
      if (!(await deleteDestination(await open(), id))) throw new DestinationNotFoundError(`no destination ${id}`);
      io.out(`deleted ${id}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown destinations command "${action ?? ''}"`);
  }
}

async function deadLetters(action: string | undefined, rest: string[], ctx: ForwardingCommandContext, open: () => Promise<Database>): Promise<number> {
  const { io } = ctx;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { limit: { type: 'string' }, after: { type: 'string' }, id: { type: 'string', multiple: true } },
  });
  const [destinationId] = positionals;
  if (!destinationId || positionals.length > 1) throw new UsageError(`dead-letters ${action ?? ''} needs DESTINATION`);
  const integer = (v: string, what: string, min: number, max: number) => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`${what} expects an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  if (action !== 'list' && action !== 'replay') throw new UsageError(`unknown dead-letters command "${action ?? ''}"`);
  const limit = values.limit === undefined ? 100 : integer(values.limit, '--limit', 1, 10_000);
  const after = values.after === undefined ? undefined : integer(values.after, '--after', 0, Number.MAX_SAFE_INTEGER);
  const ids = values.id?.map((v) => integer(v, '--id', 1, Number.MAX_SAFE_INTEGER));
  const db = await open();
  if (!(await getDestination(db, destinationId))) throw new DestinationNotFoundError(`no destination ${destinationId}`);
  switch (action) {
    case 'list': {
      const rows = await listDeadLetters(db, destinationId, { limit, after });
      if (rows.length === 0) io.out(`destination ${destinationId} has no dead letters${after ? ` after ${after}` : ''}`);
      for (const r of rows) io.out(`${r.id}  event ${r.event_id}  attempts=${r.attempts}  first failed ${r.first_failed_at}  dead ${r.dead_at}  ${r.reason}`);
      return 0;
    }
    case 'replay': {
      const n = await replayDeadLetters(db, destinationId, ids);
      io.out(`queued ${n} dead letter${n === 1 ? '' : 's'} of ${destinationId} for delivery again`);
      return 0;
    }
  }
}
