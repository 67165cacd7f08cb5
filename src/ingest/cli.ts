import { apiKeyCommands } from '../kit/api-keys/commands.ts';
import { CommandFailure, runCommand, str, usageLines, type CommandGroup } from '../kit/cli-runner.ts';
import type { CommandIO } from '../kit/service.ts';
import { commandDatabase } from '../kit/service-config.ts';
import { INGEST_MIGRATIONS } from './app.ts';
import type { IngestConfig } from './config.ts';
import { classifyErasureError, erasureCommands } from './erasure/cli.ts';
import { erasureDigestKey } from './erasure/digest.ts';
import { classifyForwardingError, forwardingCommands } from './forwarding/cli.ts';
import { forwardingGuard } from './forwarding/guard.ts';
import { INGEST_KEYS } from './projects/keys.ts';
import { classifyRetentionError, retentionCommands } from './retention/cli.ts';
import { loaderCommands } from './log/cli.ts';
import {
  createProject,
  listProjects,
  PROJECT_ID_PATTERN,
  ProjectExistsError,
  ProjectInputError,
} from './projects/store.ts';

/** `platform ingest ...`: projects, API keys, destinations and dead letters, retention, erasures, straight against the service's database. */
function ingestCommands(config: IngestConfig, env: NodeJS.ProcessEnv): CommandGroup {
  const withDatabase = commandDatabase('ingest', config, INGEST_MIGRATIONS);
  return {
    name: 'ingest',
    classify: (err) =>
      err instanceof ProjectExistsError || err instanceof ProjectInputError
        ? new CommandFailure(err.message)
        : (classifyForwardingError(err) ?? classifyRetentionError(err) ?? classifyErasureError(err)),
    commands: [
      {
        path: ['projects', 'create'],
        synopsis: 'NAME [--id ID]',
        summary: 'create a project (id generated unless given)',
        options: { id: { type: 'string' } },
        exports: (project: { id?: string }) => ({ PROJECT_ID: project.id }),
        positionals: { min: 1, max: 20 },
        run: ({ values, positionals, result }) => {
          const name = positionals.join(' ').trim();
          const id = str(values, 'id');
          if (!name) throw new CommandFailure('expects a project NAME');
          if (id !== undefined && !PROJECT_ID_PATTERN.test(id))
            throw new CommandFailure(
              '--id must be letters, digits, "_", "." or "-" (at most 64, starting with a letter or digit)',
            );
          return withDatabase(async (db) => {
            const project = await createProject(db, { name, id });
            result(project, [`created project ${project.id} (${project.name})`]);
          });
        },
      },
      {
        path: ['projects', 'list'],
        synopsis: '',
        summary: 'list projects',
        run: ({ result }) =>
          withDatabase(async (db) => {
            const projects = await listProjects(db);
            result(
              { items: projects },
              projects.map((p) => `${p.id}\t${p.name}\t${p.created_at}`),
            );
          }),
      },
      ...apiKeyCommands({
        service: 'ingest',
        table: INGEST_KEYS,
        withDatabase,
        exports: { id: 'KEY_ID', key: 'API_KEY' },
        owner: { argument: 'PROJECT', noun: 'project' },
        redisUrl: config.redisUrl,
        cacheSeconds: config.keyCacheSeconds,
      }),
      ...forwardingCommands({ withDatabase, secretKey: config.secretKey, guard: () => forwardingGuard(config), env }),
      ...retentionCommands({ withDatabase, config }),
      ...erasureCommands({
        withDatabase,
        redisUrl: config.redisUrl,
        cacheSeconds: config.keyCacheSeconds,
        digestKey: () => erasureDigestKey(config.secretKey),
      }),
      ...loaderCommands({ config, migrations: INGEST_MIGRATIONS }),
    ],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const INGEST_USAGE = usageLines(ingestCommands({} as IngestConfig, {}));

export function ingestCommand(
  args: string[],
  config: IngestConfig,
  io: CommandIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return runCommand(ingestCommands(config, env), args, io);
}
