import {
  CommandFailure,
  UsageError,
  apiKeyLine,
  runCommand,
  str,
  usageLines,
  type CommandGroup,
} from '../kit/cli-runner.ts';
import { commandDatabase } from '../kit/service-config.ts';
import type { CommandIO } from '../kit/service.ts';
import { AUDIT_MIGRATIONS } from './app.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './auth/keys.ts';
import type { AuditServiceConfig } from './config.ts';
import { deleteFinishedJob } from './jobs/retention.ts';
import { runCommand as ciRunCommand } from './ci/command.ts';

/** `platform audit keys ...` and `jobs delete`: API keys and an operator's deletes, straight against the service's database. */
function auditCommands(config: AuditServiceConfig): CommandGroup {
  const withDatabase = commandDatabase('audit', config, AUDIT_MIGRATIONS);
  return {
    name: 'audit',
    commands: [
      ciRunCommand(config),
      {
        path: ['keys', 'create'],
        synopsis: '[--name NAME]',
        summary: 'create an API key for the audit API (shown once)',
        options: { name: { type: 'string' } },
        exports: (key: { id?: string; key?: string }) => ({ AUDIT_KEY_ID: key.id, AUDIT_KEY: key.key }),
        run: ({ values, result, json, io }) => {
          const name = str(values, 'name') ?? '';
          if (name.length > 200 || name.includes('\0'))
            throw new UsageError('--name must be at most 200 characters, without NUL');
          return withDatabase(async (db) => {
            const { key, record } = await createApiKey(db, name);
            result({ ...record, key }, [`created key ${record.id}${record.name ? ` (${record.name})` : ''}`, key]);
            if (!json) io.err('store this key now: it is not kept and cannot be shown again');
          });
        },
      },
      {
        path: ['keys', 'list'],
        synopsis: '',
        summary: 'list API keys (never the keys themselves)',
        run: ({ result }) =>
          withDatabase(async (db) => {
            const keys = await listApiKeys(db);
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
            result(record, [`revoked key ${record.id}`]);
          }),
      },
      {
        // DELETE /api/v1/audits/{id} means cancel (Document 3), so deleting a finished job is the operator's, like keys.
        path: ['jobs', 'delete'],
        synopsis: 'JOB_ID',
        summary: 'delete a finished (completed, failed or cancelled) audit job and its result, whoever owns it',
        positionals: { min: 1, max: 1 },
        run: ({ positionals, result }) =>
          withDatabase(async (db) => {
            const id = positionals[0]!;
            const outcome = await deleteFinishedJob(db, id);
            if (!outcome) throw new CommandFailure(`no audit job ${id}`);
            if (!outcome.deleted)
              throw new CommandFailure(
                `audit job ${id} is ${outcome.status}: only finished jobs are deleted; cancel it first (DELETE /api/v1/audits/${id})`,
              );
            result({ id, status: outcome.status, deleted: true }, [`deleted ${outcome.status} audit job ${id}`]);
          }),
      },
    ],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const AUDIT_USAGE = usageLines(auditCommands({} as AuditServiceConfig));

export function auditCommand(args: string[], config: AuditServiceConfig, io: CommandIO): Promise<number> {
  return runCommand(auditCommands(config), args, io);
}
