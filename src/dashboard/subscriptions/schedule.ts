/** When a subscription is sent: every hour at a minute, every day at a time, or every week on a day at a time. */
export interface Schedule {
  frequency: 'hourly' | 'daily' | 'weekly';
  minute: number;
  hour: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  /** IANA name: the time is the wall-clock time there (Metabase's "report timezone" asks, #31928). */
  timezone: string;
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock parts of an instant in a zone. */
function partsIn(at: Date, timeZone: string) {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    weekday: 'short',
  });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.weekday!);
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
    weekday,
  };
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(at: Date, timeZone: string): number {
  const p = partsIn(at, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The instant a wall-clock time in a zone names. A time a DST change skips comes out an hour later; a time it repeats,
 * the first of the two.
 */
function instantOf(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const first = wall - offsetAt(new Date(wall), timeZone);
  const second = wall - offsetAt(new Date(first), timeZone);
  return new Date(Math.min(first, second));
}

/** The first time after `after` the schedule sends. */
export function nextRun(s: Schedule, after: Date): Date {
  const local = partsIn(after, s.timezone);
  // Walk whole local days from today: at most 8 for a weekly schedule, 2 otherwise.
  for (let d = 0; d <= 8; d++) {
    const day = new Date(Date.UTC(local.year, local.month - 1, local.day + d));
    const [y, m, dd] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    if (s.frequency === 'weekly' && day.getUTCDay() !== s.weekday) continue;
    const hours = s.frequency === 'hourly' ? Array.from({ length: 24 }, (_, h) => h) : [s.hour];
    for (const h of hours) {
      const at = instantOf(y, m, dd, h, s.minute, s.timezone);
      if (at.getTime() > after.getTime()) return at;
    }
  }
  throw new Error('no next run within 8 days');
}
