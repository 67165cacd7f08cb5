import type { ApiSchedule, ApiSite } from './api.ts';
import { formatDateTime } from '../../app/datetime.ts';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const weekdayName = (day: number) => WEEKDAYS[day] ?? String(day);
export const WEEKDAY_NAMES = WEEKDAYS;

/** A time in the browser's zone, or in `timeZone` (then named after it); none: nothing said. */
export const when = (iso: string | null | undefined, timeZone?: string) =>
  iso ? formatDateTime(iso, { timeZone }) + (timeZone ? ` (${timeZone})` : '') : '';

/** A schedule in words: "Daily at 03:00 (UTC)", "Mondays at 09:30 (Europe/Paris)", "Cron 0 6 * * 1-5 (UTC)". */
export function scheduleText(schedule: ApiSchedule | null): string {
  if (!schedule) return 'Not scheduled';
  const what =
    schedule.kind === 'daily'
      ? `Daily at ${schedule.time}`
      : schedule.kind === 'weekly'
        ? `${weekdayName(schedule.weekday ?? 1)}s at ${schedule.time}`
        : `Cron ${schedule.cron}`;
  return `${what} (${schedule.timeZone})${schedule.enabled ? '' : ', paused'}`;
}

export const STATUS_TEXT: Record<NonNullable<ApiSite['latestRun']>['status'], string> = {
  pending: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** A run's progress in words: "2 of 5 pages". */
export const pagesText = (run: NonNullable<ApiSite['latestRun']>) =>
  `${run.pagesDone} of ${run.pagesTotal} page${run.pagesTotal === 1 ? '' : 's'}`;
