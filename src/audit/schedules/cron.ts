import { Cron } from 'croner';

/** Two runs of one schedule are never closer than this: an audit of a site takes minutes and loads its pages. */
export const MIN_GAP_MINUTES = 15;

export type ScheduleKind = 'daily' | 'weekly' | 'cron';

export interface ScheduleRule {
  kind: ScheduleKind;
  /** HH:MM for daily and weekly. */
  time: string | null;
  /** 0 Sunday to 6 Saturday, weekly only. */
  weekday: number | null;
  cron: string;
  timeZone: string;
}

/** Why a schedule cannot be kept: worded for the field it is about. */
export class ScheduleError extends Error {}

/** The rule a request asks for, with its expression written and checked, or a ScheduleError naming what is wrong. */
export function scheduleRule(input: {
  kind: ScheduleKind;
  time?: string | undefined;
  weekday?: number | undefined;
  cron?: string | undefined;
  timeZone: string;
}): ScheduleRule {
  if (!validTimeZone(input.timeZone))
    throw new ScheduleError(`timeZone "${input.timeZone}" is not an IANA time zone such as Europe/Paris or UTC`);
  if (input.kind === 'cron') {
    if (input.time !== undefined || input.weekday !== undefined)
      throw new ScheduleError('time and weekday are for daily and weekly schedules; a cron schedule says it in cron');
    if (!input.cron) throw new ScheduleError('cron is required when kind is "cron"');
    const cron = input.cron.trim().replace(/\s+/g, ' ');
    checkExpression(cron, input.timeZone);
    return { kind: 'cron', time: null, weekday: null, cron, timeZone: input.timeZone };
  }
  if (input.cron !== undefined) throw new ScheduleError(`cron is for kind "cron"; a ${input.kind} schedule takes time`);
  if (input.kind === 'daily' && input.weekday !== undefined) throw new ScheduleError('weekday is for weekly schedules');
  const time = input.time ?? '03:00';
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const weekday = input.kind === 'weekly' ? (input.weekday ?? 1) : null;
  const cron = `${minute} ${hour} * * ${weekday ?? '*'}`;
  return { kind: input.kind, time, weekday, cron, timeZone: input.timeZone };
}

/** The first slot strictly after `after`; slots missed before it are not made up (a missed run runs once). */
export function nextRun(rule: Pick<ScheduleRule, 'cron' | 'timeZone'>, after: Date): Date {
  const next = parse(rule.cron, rule.timeZone).nextRun(after);
  if (!next) throw new ScheduleError(`cron "${rule.cron}" never runs again`);
  return next;
}

function parse(cron: string, timeZone: string): Cron {
  return new Cron(cron, { timezone: timeZone, paused: true, mode: '5-part' });
}

function checkExpression(cron: string, timeZone: string): void {
  let runs: Date[];
  try {
    runs = parse(cron, timeZone).nextRuns(6, new Date());
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
    throw new ScheduleError(`cron "${cron}" is not a five-field cron expression: ${why}`);
  }
  if (runs.length === 0) throw new ScheduleError(`cron "${cron}" never runs`);
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < MIN_GAP_MINUTES * 60_000)
      throw new ScheduleError(
        `cron "${cron}" runs more often than every ${MIN_GAP_MINUTES} minutes, the most a schedule may`,
      );
  }
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}
