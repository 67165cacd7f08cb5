import {
  QUOTE,
  BACKSLASH,
  COLON,
  COMMA,
  OPEN_ARRAY,
  CLOSE_ARRAY,
  OPEN_OBJECT,
  CLOSE_OBJECT,
  MINUS,
  PLUS,
  DOT,
  DIGIT_0,
  DIGIT_9,
  LOWER_E,
  UPPER_E,
  LOWER_T,
  LOWER_F,
  LOWER_N,
  SIMPLE_ESCAPE,
} from './json-bytes.ts';

/**
 * Where each event of a batch lies in the request's own bytes, and whether those bytes are exactly what
 * `JSON.stringify` of the parsed event would write. Storing them saves serialising every event again (about 2 µs
 * of ~600 bytes, plus encoding the string back to UTF-8), which was the largest item of the service's CPU per event.
 *
 * Runs only after `JSON.parse` accepted the same text, so the bytes are valid JSON and valid UTF-8 (the body is
 * decoded with a fatal decoder). An event's bytes count as canonical only when nothing in them could serialise
 * differently: no whitespace between tokens, no escape but `\" \\ \b \f \n \r \t` (so no `\u…`, which is also how
 * a NUL or an unpaired surrogate arrives), no key starting with a digit (V8 orders array-index keys first), every
 * number spelt as JavaScript prints it (`1.50`, `1e3`, `-0`, 2^53 and beyond are not), and no key twice in one
 * object (the caller compares the members counted here with those of the parsed event). Anything else is
 * serialised as before, so what is stored never depends on which way was taken.
 */

/** Byte ranges of a batch's events in the body, with what validation needs to trust them. */
export interface RawEvents {
  bytes: Buffer;
  /** Start and end (exclusive) of event i at 2i and 2i+1; the end is -1 when the bytes are not canonical. */
  spans: Int32Array;
  /** Object members (keys) in event i, at every depth, as written. */
  members: Int32Array;
}

/**
 * The events' ranges in `bytes`, a body whose parsed `events` array holds `count` elements; undefined when the body
 * is not laid out as expected (then every event is serialised).
 */
export function rawEvents(bytes: Buffer, count: number): RawEvents | undefined {
  const n = bytes.length;
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_OBJECT) return undefined;
  let found: RawEvents | undefined;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === CLOSE_OBJECT) return undefined;
  while (i < n) {
    if (bytes[i] !== QUOTE) return undefined;
    const keyStart = i;
    i = endOfString(bytes, i);
    if (i < 0) return undefined; // an escaped key could spell "events"
    const isEvents =
      i - keyStart === EVENTS_KEY.length && bytes.compare(EVENTS_KEY, 0, EVENTS_KEY.length, keyStart, i) === 0;
    i = skipSpace(bytes, i);
    if (bytes[i] !== COLON) return undefined;
    i = skipSpace(bytes, i + 1);
    if (isEvents) {
      // JSON.parse keeps the last of repeated keys: so does this.
      if (bytes[i] !== OPEN_ARRAY) return undefined;
      const scanned = scanEvents(bytes, i, count);
      if (scanned === undefined) return undefined;
      found = scanned.events;
      i = scanned.end;
    } else {
      i = scanValue(bytes, i);
      if (i < 0) return undefined;
    }
    i = skipSpace(bytes, i);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === CLOSE_OBJECT) return found;
    else return undefined;
  }
  return undefined;
}

/** The elements of the array opening at `i`: expects exactly `count` of them. */
function scanEvents(bytes: Buffer, i: number, count: number): { events: RawEvents; end: number } | undefined {
  const spans = new Int32Array(2 * count);
  const members = new Int32Array(count);
  let index = 0;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === CLOSE_ARRAY) return count === 0 ? { events: { bytes, spans, members }, end: i + 1 } : undefined;
  for (;;) {
    if (index === count) return undefined;
    const start = i;
    i = scanValue(bytes, i);
    if (i < 0) return undefined;
    spans[2 * index] = start;
    spans[2 * index + 1] = scan.canonical ? i : -1;
    members[index] = scan.members;
    index++;
    i = skipSpace(bytes, i);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === CLOSE_ARRAY)
      return index === count ? { events: { bytes, spans, members }, end: i + 1 } : undefined;
    else return undefined;
  }
}

/** What scanValue found about the value it last scanned (kept here rather than allocated per value). */
const scan = { canonical: true, members: 0 };

/** Scans the value starting at `i`; returns the index after it (-1 on anything unexpected) and fills `scan`. */
function scanValue(bytes: Buffer, i: number): number {
  const n = bytes.length;
  let canonical = true;
  let members = 0;
  let depth = 0;
  do {
    const c = bytes[i]!;
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const s = bytes[i]!;
        if (s === QUOTE) break;
        if (s === BACKSLASH) {
          if (SIMPLE_ESCAPE[bytes[i + 1]!] !== 1) canonical = false;
          i++;
        }
      }
      i++;
      if (bytes[i] === COLON) {
        members++;
        const first = bytes[start + 1]!;
        if (first >= DIGIT_0 && first <= DIGIT_9) canonical = false;
        i++;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      i++;
    } else if (c === COMMA) {
      i++;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let digitsOnly = true;
      for (i++; i < n; i++) {
        const d = bytes[i]!;
        if (d >= DIGIT_0 && d <= DIGIT_9) continue;
        if (d === DOT || d === LOWER_E || d === UPPER_E || d === PLUS || d === MINUS) digitsOnly = false;
        else break;
      }
      // Up to 15 digits an integer is exact and printed back as written; anything else is compared with its print.
      if (!digitsOnly || i - start > 15 || (c === MINUS && bytes[start + 1] === DIGIT_0)) {
        const text = bytes.toString('latin1', start, i);
        if (String(Number(text)) !== text) canonical = false;
      }
    } else if (c === LOWER_T || c === LOWER_N) {
      i += 4;
    } else if (c === LOWER_F) {
      i += 5;
    } else if (c === SPACE || c === TAB || c === LF || c === CR) {
      canonical = false;
      i++;
    } else {
      return -1;
    }
  } while (depth > 0 && i < n);
  if (depth !== 0) return -1;
  scan.canonical = canonical;
  scan.members = members;
  return i;
}

/** The index after the string opening at `i`, or -1 if it holds an escape. */
function endOfString(bytes: Buffer, i: number): number {
  for (i++; i < bytes.length; i++) {
    const s = bytes[i];
    if (s === QUOTE) return i + 1;
    if (s === BACKSLASH) return -1;
  }
  return -1;
}

function skipSpace(bytes: Buffer, i: number): number {
  while (i < bytes.length) {
    const c = bytes[i];
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) break;
    i++;
  }
  return i;
}

const EVENTS_KEY = Buffer.from('"events"');
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
