import type { Database } from '../../kit/db.ts';
import { CommandFailure, UsageError, type Command } from '../../kit/cli-runner.ts';
import { reportView } from './maintain.ts';
import { DEFAULT_PARTITION, listPartitions, partitionView } from './partitions.ts';
import { maintainNow, type RetentionConfig } from './schedule.ts';
import {
  getProjectRetention,
  MAX_RETENTION_DAYS,
  RetentionInputError,
  RetentionProjectNotFoundError,
  setProjectRetention,
  type ProjectRetention,
} from './settings.ts';

/** The retention store's refusals, as the CLI runner's failures (exit 1). */
export function classifyRetentionError(err: unknown): CommandFailure | undefined {
  if (err instanceof RetentionInputError || err instanceof RetentionProjectNotFoundError)
    return new CommandFailure(err.message);
  return undefined;
}

const forEver = (days: number | null) => (days === null ? 'for ever' : `${days} day${days === 1 ? '' : 's'}`);

function retentionLine(r: ProjectRetention): string {
  return `${r.project_id}: ${forEver(r.effective_days)} (${r.days === null ? `the default, INGEST_RETENTION_DAYS` : 'its own setting'})`;
}

/** DAYS as given on the command line: a whole number, or `default` to follow INGEST_RETENTION_DAYS. */
function daysArg(text: string): number | null {
  if (text === 'default') return null;
  if (!/^\d+$/.test(text))
    throw new UsageError(`DAYS must be a whole number from 1 to ${MAX_RETENTION_DAYS} or "default", got "${text}"`);
  return Number(text);
}

/** `platform ingest retention …` and `platform ingest partitions …`, straight against the database. */
export function retentionCommands(ctx: {
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  config: RetentionConfig;
}): Command[] {
  const { withDatabase, config } = ctx;
  return [
    {
      path: ['retention', 'show'],
      synopsis: 'PROJECT',
      summary: "show a project's retention (its own, or the default)",
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result }) =>
        withDatabase(async (db) => {
          const r = await getProjectRetention(db, positionals[0]!, config.retentionDays);
          result(r, [retentionLine(r)]);
        }),
    },
    {
      path: ['retention', 'set'],
      synopsis: 'PROJECT DAYS|default',
      summary: "set a project's retention in days, or make it follow INGEST_RETENTION_DAYS",
      details: [
        `DAYS       1 to ${MAX_RETENTION_DAYS}: a day's events go once the day is that many days past`,
        'default    follow INGEST_RETENTION_DAYS (0 there: for ever)',
        'Applied by the next partition maintenance (hourly in the service, or `platform ingest partitions maintain`).',
      ],
      positionals: { min: 2, max: 2 },
      run: ({ positionals, result }) => {
        const days = daysArg(positionals[1]!);
        return withDatabase(async (db) => {
          const r = await setProjectRetention(db, positionals[0]!, days, config.retentionDays);
          result(r, [retentionLine(r)]);
        });
      },
    },
    {
      path: ['partitions', 'list'],
      synopsis: '',
      summary: 'list the partitions of events, oldest first',
      run: ({ result }) =>
        withDatabase(async (db) => {
          const partitions = await listPartitions(db);
          result(
            { items: partitions.map(partitionView) },
            partitions.map(
              (p) =>
                `${p.name}\t${p.isDefault ? 'default' : `${p.from?.toISOString() ?? '-∞'} .. ${p.to!.toISOString()}`}\t~${p.estimatedRows} rows\t${p.bytes} bytes`,
            ),
          );
        }),
    },
    {
      path: ['partitions', 'maintain'],
      synopsis: '',
      summary: 'make the daily partitions ahead and drop the expired ones now (what the service does hourly)',
      run: ({ result }) =>
        withDatabase(async (db) => {
          const report = await maintainNow(db, config);
          if (report.postponed.length && !report.created.length && !report.dropped.length)
            throw new CommandFailure(
              `nothing could be changed now (${report.postponed.join(', ')}): another instance holds the partitions' lock, or a lock on events was not had within 5 s; try again`,
            );
          result(reportView(report), [
            `created: ${report.created.join(', ') || 'none'}`,
            `dropped: ${report.dropped.join(', ') || 'none'}`,
            `expired events deleted from ${DEFAULT_PARTITION}: ${report.deletedFromDefault}`,
            ...(report.postponed.length ? [`postponed: ${report.postponed.join(', ')}`] : []),
          ]);
        }),
    },
  ];
}
