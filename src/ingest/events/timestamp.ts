/**
 * ISO 8601 extended date-time with a time zone: `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.123+02:00`,
 * `2024-05-01T12:30+0200`; seconds and fraction optional, fraction with `.` or `,`. A date alone, a local time
 * without zone, or an impossible date (February 30th, hour 24, second 60) is refused.
 */
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Milliseconds since the epoch of a valid timestamp, undefined otherwise. */
export function parseIsoTimestamp(value: string): number | undefined {
  const m = PATTERN.exec(value);
  if (!m) return undefined;
  const year = +m[1]!, month = +m[2]!, day = +m[3]!, hour = +m[4]!, minute = +m[5]!;
  const second = m[6] === undefined ? 0 : +m[6];
  const millis = m[7] === undefined ? 0 : Math.floor(+(m[7] + '00').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const oh = +m[10]!, om = m[11] === undefined ? 0 : +m[11];
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  // Years 0000–0099 are valid ISO but Date.UTC maps them to 1900+; keep them out. An offset can carry the last hours of
  // 9999 into year 10000 in UTC, which toISOString writes as `+010000-…`, a text PostgreSQL refuses for the whole insert.
  return year >= 1000 && ms < END_OF_YEAR_9999 ? ms : undefined;
}

const END_OF_YEAR_9999 = Date.UTC(10000, 0, 1);

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
