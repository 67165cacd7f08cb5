import { parseArgs } from 'node:util';
import { migrate } from '../kit/migrations.ts';
import type { CommandIO } from '../kit/service.ts';
import { INGEST_MIGRATIONS, openIngestDatabase } from './app.ts';
import type { IngestConfig } from './config.ts';
import { forwardingCommand, FORWARDING_USAGE } from './forwarding/cli.ts';
import {
  createApiKey, createProject, getProject, listApiKeys, listProjects, revokeApiKey,
  PROJECT_ID_PATTERN, ProjectExistsError, ProjectNotFoundError,
} from './projects/store.ts';

export const INGEST_USAGE = [
  'projects create NAME [--id ID]   create a project (id generated unless given)',
  'projects list                    list projects',
  'keys create PROJECT [--name N]   create an API key for a project (shown once)',
  'keys list PROJECT                list a project\'s API keys (never the keys themselves)',
  'keys revoke KEY_ID               revoke an API key',
  ...FORWARDING_USAGE,
];

class CommandError extends Error {}

/** `platform ingest ...`: project and API key management straight against the service's database. */
export async function ingestCommand(args: string[], config: IngestConfig, io: CommandIO): Promise<number> {
  const [group, action, ...rest] = args;
  if (group === 'destinations' || group === 'dead-letters') {
    return forwardingCommand(args, {
      io,
      openDatabase: async () => {
        const db = await openIngestDatabase(config);
        try {
          await migrate(db, INGEST_MIGRATIONS);
        } catch (err) {
          await db.close();
          throw err;
        }
        return db;
      },
      secretKey: () => config.secretKey,
    });
  }
  const known = (group === 'projects' && (action === 'create' || action === 'list')) || (group === 'keys' && (action === 'create' || action === 'list' || action === 'revoke'));
  if (!known) {
    io.err(`unknown command "ingest ${args.join(' ')}"; usage:\n${INGEST_USAGE.map((u) => `  platform ingest ${u}`).join('\n')}`);
    return 2;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    io.err(`platform ingest ${group} ${action}: ${(err as Error).message}`);
    return 2;
  }
  const db = await openIngestDatabase(config);
  try {
    await migrate(db, INGEST_MIGRATIONS);
    const { values, positionals } = parsed;
    const one = (what: string) => {
      if (positionals.length !== 1) throw new CommandError(`expects exactly one ${what}`);
      return positionals[0]!;
    };
    if (group === 'projects' && action === 'create') {
      const name = positionals.join(' ').trim();
      if (!name) throw new CommandError('expects a project NAME');
      if (values.id !== undefined && !PROJECT_ID_PATTERN.test(values.id)) throw new CommandError('--id must be letters, digits, "_", "." or "-" (at most 64, starting with a letter or digit)');
      const project = await createProject(db, { name, id: values.id });
      io.out(`created project ${project.id} (${project.name})`);
    } else if (group === 'projects') {
      for (const p of await listProjects(db)) io.out(`${p.id}\t${p.name}\t${p.created_at}`);
    } else if (action === 'create') {
      const record = await createApiKey(db, one('PROJECT'), values.name ?? '');
      io.out(`created key ${record.record.id} for project ${record.record.project_id}`);
      io.out(record.key);
      io.err('store this key now: it is not kept and cannot be shown again');
    } else if (action === 'list') {
      const projectId = one('PROJECT');
      if (!(await getProject(db, projectId))) throw new CommandError(`no project ${projectId}`);
      for (const k of await listApiKeys(db, projectId)) io.out(`${k.id}\t${k.prefix}…\t${k.name || '-'}\t${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`);
    } else {
      const keyId = one('KEY_ID');
      const record = await revokeApiKey(db, keyId);
      if (!record) throw new CommandError(`no key ${keyId}`);
      io.out(`revoked key ${record.id} of project ${record.project_id} (running services stop accepting it within INGEST_KEY_CACHE_SECONDS)`);
    }
    return 0;
  } catch (err) {
    if (err instanceof CommandError || err instanceof ProjectExistsError || err instanceof ProjectNotFoundError) {
      io.err(`platform ingest ${group} ${action}: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: { id: { type: 'string' }, name: { type: 'string' } } });
}
