import { apiKeyCommands } from '../kit/api-keys/commands.ts';
import { CommandFailure, runCommand, usageLines, type CommandGroup } from '../kit/cli-runner.ts';
import { commandDatabase } from '../kit/service-config.ts';
import type { CommandIO } from '../kit/service.ts';
import { AUDIT_MIGRATIONS } from './app.ts';
import { AUDIT_KEYS } from './auth/keys.ts';
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
      ...apiKeyCommands({
        service: 'audit',
        table: AUDIT_KEYS,
        withDatabase,
        exports: { id: 'AUDIT_KEY_ID', key: 'AUDIT_KEY' },
        redisUrl: config.redisUrl,
        cacheSeconds: config.keyCacheSeconds,
      }),
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
