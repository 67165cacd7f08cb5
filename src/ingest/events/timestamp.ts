/**
 * ISO 8601 extended date-time with a time zone: `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.123+02:00`,
 * `2024-05-01T12:30+0200`; seconds and fraction optional, fraction with `.` or `,`. A date alone, a local time
 * without zone, or an impossible date (February 30th, hour 24, second 60) is refused.
 */
const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Milliseconds since the epoch of a valid timestamp, undefined otherwise. */
export function parseIsoTimestamp(value: string): number | undefined {
  // What toISOString writes (`2024-05-01T12:30:00.123Z`), which SDKs send, is read without the expression (~0.7 µs of
  // the service's ~19 µs per event); the same checks follow either way.
  if (value.length === 24 && isToIsoStringShape(value)) {
    return instant(
      digits(value, 0, 4),
      digits(value, 5, 2),
      digits(value, 8, 2),
      digits(value, 11, 2),
      digits(value, 14, 2),
      digits(value, 17, 2),
      digits(value, 20, 3),
      0,
    );
  }
  const m = PATTERN.exec(value);
  if (!m) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const oh = +m[10]!,
      om = m[11] === undefined ? 0 : +m[11];
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const second = m[6] === undefined ? 0 : +m[6];
  const millis = m[7] === undefined ? 0 : Math.floor(+(m[7] + '00').slice(0, 3));
  return instant(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, second, millis, offsetMinutes);
}

/**
 * parseIsoTimestamp of the text in bytes[start, end), for a batch read from its bytes (fast-batch.ts): toISOString's
 * shape is read from the bytes, anything else from their latin1 text (a timestamp is ASCII; any other byte fails both ways).
 */
export function parseIsoTimestampBytes(bytes: Buffer, start: number, end: number): number | undefined {
  if (end - start !== 24) return parseIsoTimestamp(bytes.toString('latin1', start, end));
  for (let i = 0; i < 24; i++) {
    const c = bytes[start + i]!;
    const expected = SHAPE[i]!;
    if (expected === DIGIT ? c < 0x30 || c > 0x39 : c !== expected)
      return parseIsoTimestamp(bytes.toString('latin1', start, end));
  }
  const d = (at: number, count: number) => {
    let n = 0;
    for (let i = start + at; i < start + at + count; i++) n = n * 10 + bytes[i]! - 0x30;
    return n;
  };
  return instant(d(0, 4), d(5, 2), d(8, 2), d(11, 2), d(14, 2), d(17, 2), d(20, 3), 0);
}

function instant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  offsetMinutes: number,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  // Years 0000–0099 are valid ISO but Date.UTC maps them to 1900+; keep them out. An offset can carry the last hours of
  // 9999 into year 10000 in UTC, which toISOString writes as `+010000-…`, a text PostgreSQL refuses for the whole insert.
  return year >= 1000 && ms < END_OF_YEAR_9999 ? ms : undefined;
}

const END_OF_YEAR_9999 = Date.UTC(10000, 0, 1);

/** `dddd-dd-ddTdd:dd:dd.dddZ`, checked character by character. */
function isToIsoStringShape(v: string): boolean {
  for (let i = 0; i < 24; i++) {
    const c = v.charCodeAt(i);
    const expected = SHAPE[i]!;
    if (expected === DIGIT ? c < 0x30 || c > 0x39 : c !== expected) return false;
  }
  return true;
}

const DIGIT = 0;
/** The character codes of toISOString's shape, DIGIT where any digit goes. */
const SHAPE = Uint8Array.from('0000-00-00T00:00:00.000Z', (c) => (c === '0' ? DIGIT : c.charCodeAt(0)));

function digits(v: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + v.charCodeAt(i) - 0x30;
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
