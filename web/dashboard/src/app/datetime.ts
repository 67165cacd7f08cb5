/**
 * Every date and time the web app shows, in one style: the person's locale and time zone (or a zone named), a date as
 * "Mar 1, 2026", a moment to the minute, and the locale's own hour cycle everywhere, tables and charts alike (12-hour
 * in the US, 24-hour in most of Europe). A log's entries (events, runs, token activity, change logs) are to the
 * second, since several happen within a minute and their order is what is read. See docs/decisions.md.
 */
export type Moment = string | number | Date;
export interface Where {
  /** An IANA zone; none: the browser's. An unknown zone falls back to the browser's. */
  timeZone?: string | undefined;
  /** A BCP 47 tag; none: the browser's (tests fix one). */
  locale?: string | undefined;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** A formatter per style, zone and locale, made once: building one is the costly part of formatting. */
function formatter(options: Intl.DateTimeFormatOptions, { timeZone, locale }: Where = {}): Intl.DateTimeFormat {
  const key = JSON.stringify([options, timeZone ?? '', locale ?? '']);
  let f = formats.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat(locale, { ...options, ...(timeZone ? { timeZone } : {}) });
    } catch {
      // An unknown zone or tag: the browser's own.
      f = new Intl.DateTimeFormat(undefined, options);
    }
    formats.set(key, f);
  }
  return f;
}

const DATE = { dateStyle: 'medium' } as const;
const MINUTE = { dateStyle: 'medium', timeStyle: 'short' } as const;
const SECOND = { dateStyle: 'medium', timeStyle: 'medium' } as const;

const asDate = (v: Moment) => (v instanceof Date ? v : new Date(v));

/** "Mar 1, 2026, 3:05 PM": a moment to the minute. */
export const formatDateTime = (v: Moment, where?: Where) => formatter(MINUTE, where).format(asDate(v));
/** "Mar 1, 2026, 3:05:09 PM": a log entry's moment, to the second. */
export const formatInstant = (v: Moment, where?: Where) => formatter(SECOND, where).format(asDate(v));
/** "Mar 1, 2026": a day. */
export const formatDate = (v: Moment, where?: Where) => formatter(DATE, where).format(asDate(v));
/** "3:05:09 PM": the time of day of a live entry, to the second. */
export const formatTimeOfDay = (v: Moment, where?: Where) =>
  formatter({ timeStyle: 'medium' }, where).format(asDate(v));
/** "Mar 1, 2026, 3:05 PM – Mar 2, 2026, 3:05 PM": two moments to the minute, what they share said once. */
export const formatDateTimeRange = (from: Moment, to: Moment, where?: Where) =>
  formatter(MINUTE, where).formatRange(asDate(from), asDate(to));
/** The zone a range or moment is written in, to name beside it ("UTC", "Europe/Paris"). */
export const zoneOf = (where?: Where) => formatter(MINUTE, where).resolvedOptions().timeZone;

/** The browser's time zone, the default of a schedule typed here. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A moment to the minute, or "never". */
export const whenOrNever = (v: Moment | null | undefined) => (v ? formatDateTime(v) : 'never');
/** A log entry's moment to the second, or "never". */
export const instantOrNever = (v: Moment | null | undefined) => (v ? formatInstant(v) : 'never');

/** "Mar 1": a day within a chart or a short list (a day's bucket is a UTC day, so `timeZone: 'UTC'` there). */
export const formatDay = (v: Moment, where?: Where) =>
  formatter({ month: 'short', day: 'numeric' }, where).format(asDate(v));
/** "Mar 1, 3:00 PM": an hour's bucket, with its day. */
export const formatDayHour = (v: Moment, where?: Where) =>
  formatter({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }, where).format(asDate(v));

/**
 * A chart's time-axis label by what its tick marks: a year, a month with its year, a day as "Mar 1" (ECharts' own is a
 * bare "1"), a time of day as the tables write it ("3:00 PM", "15:00"), in the same locale and zone as they are.
 * ECharts reads the returned text as a template, and what Intl writes holds no braces.
 */
export function timeAxisLabel(value: number, where?: Where): string {
  const at = new Date(value);
  const n = wallClock(at, where);
  if (n('second') !== 0 || at.getMilliseconds() !== 0)
    return formatter({ hour: 'numeric', minute: '2-digit', second: '2-digit' }, where).format(at);
  if (n('hour') !== 0 || n('minute') !== 0) return formatter({ hour: 'numeric', minute: '2-digit' }, where).format(at);
  if (n('day') !== 1) return formatDay(at, where);
  if (n('month') !== 1) return formatter({ month: 'short', year: 'numeric' }, where).format(at);
  return formatter({ year: 'numeric' }, where).format(at);
}

/**
 * A chart's tooltip heading for a point in time (ECharts' own is a 24-hour "2026-03-01 15:00:00" whatever the locale):
 * its day, with its time of day when it has one ("Mar 1, 2026, 3:05 PM"), to the second when it has seconds.
 */
export function timePointLabel(value: number | string | Date, where?: Where): string {
  const at = asDate(value);
  const n = wallClock(at, where);
  if (n('second') !== 0 || at.getMilliseconds() !== 0) return formatInstant(at, where);
  if (n('hour') !== 0 || n('minute') !== 0) return formatDateTime(at, where);
  return formatDate(at, where);
}

/** The parts of a moment's wall-clock time in the zone, as numbers. */
function wallClock(at: Date, where?: Where): (type: string) => number {
  const parts = formatter(
    {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    },
    // Read as numbers, so in a locale whose digits parse.
    { timeZone: where?.timeZone, locale: 'en-US' },
  ).formatToParts(at);
  return (type) => Number(parts.find((p) => p.type === type)?.value ?? 0);
}
