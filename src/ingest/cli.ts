import { CommandFailure, apiKeyLine, runCommand, str, usageLines, type CommandGroup } from '../kit/cli-runner.ts';
import type { CommandIO } from '../kit/service.ts';
import { commandDatabase } from '../kit/service-config.ts';
import { INGEST_MIGRATIONS } from './app.ts';
import type { IngestConfig } from './config.ts';
import { classifyForwardingError, forwardingCommands } from './forwarding/cli.ts';
import { classifyRetentionError, retentionCommands } from './retention/cli.ts';
import { loaderCommands } from './log/cli.ts';
import {
  createApiKey,
  createProject,
  getProject,
  listApiKeys,
  listProjects,
  revokeApiKey,
  PROJECT_ID_PATTERN,
  ProjectExistsError,
  ProjectInputError,
  ProjectNotFoundError,
} from './projects/store.ts';

/** `platform ingest ...`: projects, API keys, destinations and dead letters, straight against the service's database. */
function ingestCommands(config: IngestConfig, env: NodeJS.ProcessEnv): CommandGroup {
  const withDatabase = commandDatabase('ingest', config, INGEST_MIGRATIONS);
  return {
    name: 'ingest',
    classify: (err) =>
      err instanceof ProjectExistsError || err instanceof ProjectNotFoundError || err instanceof ProjectInputError
        ? new CommandFailure(err.message)
        : (classifyForwardingError(err) ?? classifyRetentionError(err)),
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
      {
        path: ['keys', 'create'],
        synopsis: 'PROJECT [--name N]',
        summary: 'create an API key for a project (shown once)',
        options: { name: { type: 'string' } },
        exports: (key: { id?: string; key?: string }) => ({ KEY_ID: key.id, API_KEY: key.key }),
        positionals: { min: 1, max: 1 },
        run: ({ values, positionals, result, json, io }) =>
          withDatabase(async (db) => {
            const created = await createApiKey(db, positionals[0]!, str(values, 'name'));
            result({ ...created.record, key: created.key }, [
              `created key ${created.record.id} for project ${created.record.project_id}`,
              created.key,
            ]);
            if (!json) io.err('store this key now: it is not kept and cannot be shown again');
          }),
      },
      {
        path: ['keys', 'list'],
        synopsis: 'PROJECT',
        summary: "list a project's API keys (never the keys themselves)",
        positionals: { min: 1, max: 1 },
        run: ({ positionals, result }) =>
          withDatabase(async (db) => {
            const projectId = positionals[0]!;
            if (!(await getProject(db, projectId))) throw new CommandFailure(`no project ${projectId}`);
            const keys = await listApiKeys(db, projectId);
            result({ items: keys }, keys.map(apiKeyLine));
          }),
      },
      {
        path: ['keys', 'revoke'],
        synopsis: 'KEY_ID',
        summary: 'revoke an API key',
        positionals: { min: 1, max: 1 },
        run: ({ positionals, result }) =>
          withDatabase(async (db) => {
            const record = await revokeApiKey(db, positionals[0]!);
            if (!record) throw new CommandFailure(`no key ${positionals[0]}`);
            result(record, [
              `revoked key ${record.id} of project ${record.project_id} (running services stop accepting it within INGEST_KEY_CACHE_SECONDS)`,
            ]);
          }),
      },
      ...forwardingCommands({ withDatabase, secretKey: config.secretKey, env }),
      ...retentionCommands({ withDatabase, config }),
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
