/**
 * A batch read straight from its bytes, without JSON.parse, when nothing in it needs more than that: the body is
 * exactly `{"events":[…]}` with no whitespace, and every event is an object that validation accepts as it stands and
 * whose bytes are what `JSON.stringify` would write for it (raw-events.ts's rules: only the escapes
 * `\" \\ \b \f \n \r \t`, no key starting with a digit, numbers spelt as JavaScript prints them, no key twice in one
 * object). Parsing and walking the parsed events was over half of the service's CPU per event, and their garbage much
 * of its memory under load.
 *
 * Anything else — invalid JSON, any event validation would reject, a repeated `event_id`, escapes in a key or in a
 * column's value, whitespace, more than 1,000 events, very wide objects — gives undefined, and the caller takes the
 * ordinary path (JSON.parse, validate.ts), which answers exactly as before. So this never decides an answer of its
 * own: a batch it takes is one the ordinary path accepts whole, with the same columns byte for byte (tested on fixed
 * and random bodies in test/ingest/fast-batch.test.ts).
 *
 * The bytes must be valid UTF-8 (readBody checks that before anything else).
 */
import {
  EVENT_TYPES,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_BATCH,
  MAX_ID_LENGTH,
  MAX_NESTING,
  OPTIONAL_FIELDS,
  REQUIRED_FIELDS,
  type OptionalKind,
} from './fields.ts';
import { encodeTimestamps, repeatElement } from './pg-array.ts';
import { parseIsoTimestampBytes } from './timestamp.ts';
import { checkOptional, type PreparedEvents } from './validate.ts';
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

export interface FastBatch {
  prepared: PreparedEvents;
  received: number;
  /** Events of a suppressed `user.id`, left out (validate.ts, validateBatch). */
  suppressed: number;
}

/**
 * The batch's accepted events, or undefined when the ordinary path must read it (see above). An event whose `user.id`
 * is in `suppressed` is left out and counted, as the ordinary path does: only a project with suppressed users has
 * that field decoded.
 */
export function fastBatch(body: Buffer, projectId: string, suppressed?: ReadonlySet<string>): FastBatch | undefined {
  const n = body.length;
  if (n <= PREFIX.length + 2 || body.compare(PREFIX, 0, PREFIX.length, 0, PREFIX.length) !== 0) return undefined;
  if (body[n - 1] !== CLOSE_OBJECT || body[n - 2] !== CLOSE_ARRAY) return undefined;
  buf = body;
  limit = n - 2;
  const project = Buffer.from(projectId);
  const spans: number[] = [];
  const columns: number[] = [];
  const instants: number[] = [];
  const seen = new Set<number>();
  let bodyBytes = 0;
  let dropped = 0;
  pos = PREFIX.length;
  try {
    for (;;) {
      if (spans.length === 2 * MAX_EVENTS_PER_BATCH || buf[pos] !== OPEN_OBJECT) return undefined;
      const start = pos;
      found.fill(-1);
      top = 0;
      if (!scanObject(1)) return undefined;
      const size = pos - start;
      if (size > MAX_EVENT_BYTES) return undefined;
      const ms = acceptedEvent(project);
      if (ms === undefined) return undefined;
      // A repeated event_id (or two ids of the same hash, rare enough to leave to the ordinary path as well).
      const idHash = hashOf(buf, found[EVENT_ID * 3 + 1]!, found[EVENT_ID * 3 + 2]!);
      if (seen.has(idHash)) return undefined;
      seen.add(idHash);
      if (suppressed?.has(userId())) {
        dropped++;
      } else {
        spans.push(start, pos);
        bodyBytes += 4 + size;
        for (const f of COLUMN_FIELDS) {
          columns.push(found[f * 3 + 1]!, found[f * 3 + 2]!);
        }
        instants.push(ms);
      }
      if (pos === limit) break;
      if (buf[pos] !== COMMA) return undefined;
      pos++;
    }
    const count = instants.length;
    const bodies = Buffer.allocUnsafe(bodyBytes);
    for (let e = 0, at = 0; e < count; e++) at = element(bodies, at, spans[2 * e]!, spans[2 * e + 1]!);
    // event_id, event.type, session.id: their bytes hold no escape, so they are the values' UTF-8.
    const out = COLUMN_FIELDS.map((_, c) => {
      let size = 0;
      for (let e = 0; e < count; e++) size += 4 + columns[(e * 3 + c) * 2 + 1]! - columns[(e * 3 + c) * 2]!;
      const column = Buffer.allocUnsafe(size);
      for (let e = 0, at = 0; e < count; e++)
        at = element(column, at, columns[(e * 3 + c) * 2]!, columns[(e * 3 + c) * 2 + 1]!);
      return column;
    });
    return {
      received: count + dropped,
      suppressed: dropped,
      prepared: {
        count,
        bodies,
        projects: repeatElement(projectId, count),
        eventIds: out[0]!,
        types: out[1]!,
        sessions: out[2]!,
        timestamps: encodeTimestamps(instants),
      },
    };
  } finally {
    // Not kept alive by this module between requests.
    buf = EMPTY;
  }
}

/** The `user.id` of the event just scanned, '' when it has none (a string there is what acceptedEvent let through). */
function userId(): string {
  if (found[USER_ID * 3] !== STRING) return '';
  const start = found[USER_ID * 3 + 1]!;
  const end = found[USER_ID * 3 + 2]!;
  // With an escape, the literal read as JSON reads it; without, its bytes are the value's UTF-8.
  return stringFlags[USER_ID]! & HAS_ESCAPE
    ? (JSON.parse(buf.toString('utf8', start - 1, end + 1)) as string)
    : buf.toString('utf8', start, end);
}

/** Writes buf[start, end) as one array element (4-byte length, bytes) at `at`; returns the index after it. */
function element(out: Buffer, at: number, start: number, end: number): number {
  const length = end - start;
  out[at] = length >>> 24;
  out[at + 1] = length >>> 16;
  out[at + 2] = length >>> 8;
  out[at + 3] = length;
  at += 4;
  // A loop for the short values: Buffer#copy's call costs more than copying a few dozen bytes.
  if (length > 64) return at + buf.copy(out, at, start, end);
  for (let i = start; i < end; i++) out[at++] = buf[i]!;
  return at;
}

/**
 * The instant of the event just scanned when validation would accept it as it stands (validate.ts, validateEvent,
 * in the same order of rules), undefined otherwise. Column values holding an escape are left to the ordinary path.
 */
function acceptedEvent(project: Buffer): number | undefined {
  for (let f = 0; f < REQUIRED_FIELDS.length; f++) {
    const kind = found[f * 3]!;
    if (kind !== STRING || stringFlags[f]! & HAS_ESCAPE) return undefined;
    if (found[f * 3 + 2]! <= found[f * 3 + 1]!) return undefined;
  }
  // UTF-16 length is at most the UTF-8 length.
  if (found[EVENT_ID * 3 + 2]! - found[EVENT_ID * 3 + 1]! > MAX_ID_LENGTH) return undefined;
  // The event type's bytes must be those of one of EVENT_TYPES; a timestamp is ASCII (timestamp.ts).
  const ts = found[EVENT_TYPE * 3 + 1]!,
    te = found[EVENT_TYPE * 3 + 2]!;
  const type = TYPE_BY_HASH.get(hashOf(buf, ts, te));
  if (type === undefined || type.length !== te - ts || !sameBytes(type, 0, ts, te - ts)) return undefined;
  const ms = parseIsoTimestampBytes(buf, found[TIMESTAMP * 3 + 1]!, found[TIMESTAMP * 3 + 2]!);
  if (ms === undefined) return undefined;
  const ps = found[PROJECT_ID * 3 + 1]!,
    pe = found[PROJECT_ID * 3 + 2]!;
  if (pe - ps !== project.length || !sameBytes(project, 0, ps, pe - ps)) return undefined;
  for (let o = 0; o < OPTIONAL_FIELDS.length; o++) {
    const f = REQUIRED_FIELDS.length + o;
    const kind = found[f * 3]!;
    if (kind === -1) continue;
    if (!optionalAccepted(f, kind, OPTIONAL_FIELDS[o]![1])) return undefined;
  }
  return ms;
}

function optionalAccepted(f: number, kind: number, expected: OptionalKind): boolean {
  switch (expected) {
    case 'string':
      return kind === STRING;
    case 'object':
      return kind === OBJECT;
    case 'json-string':
      if (kind !== STRING) return false;
      // The string's value (its literal read by JSON.parse, escapes and all), then whether it holds JSON.
      return (
        checkOptional(JSON.parse(buf.toString('utf8', found[f * 3 + 1]! - 1, found[f * 3 + 2]! + 1)), expected) ===
        undefined
      );
    case 'count':
    case 'status-code':
      // A number's bytes here are spelt as JavaScript prints it, so Number() reads the value JSON.parse would.
      return (
        kind === NUMBER &&
        checkOptional(Number(buf.toString('latin1', found[f * 3 + 1]!, found[f * 3 + 2]!)), expected) === undefined
      );
  }
}

// The scanner's state: module-level so that a batch allocates nothing per value.
const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let pos = 0;
/** Index of the body's closing `]`: no event reaches it. */
let limit = 0;

const STRING = 1;
const NUMBER = 2;
const LITERAL = 3;
const OBJECT = 4;
const ARRAY = 5;
const HAS_ESCAPE = 1;

/** The event's own fields that validation reads: required ones first, then the optional ones, in fields.ts's order. */
const FIELD_NAMES = [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS.map(([name]) => name)];
const EVENT_ID = 0;
const PROJECT_ID = 1;
const SESSION_ID = 2;
const EVENT_TYPE = 3;
const TIMESTAMP = 4;
const USER_ID = FIELD_NAMES.indexOf('user.id');
if (USER_ID < 0) throw new Error('fast-batch: user.id is not among the fields validation reads');
/** event_id, event.type, session.id: the text columns taken from the event (project_id is the key's). */
const COLUMN_FIELDS = [EVENT_ID, EVENT_TYPE, SESSION_ID];
/** Per field of FIELD_NAMES: the kind of its value (-1 when absent), its start and end (strings: inside the quotes). */
const found = new Int32Array(FIELD_NAMES.length * 3);
/** Per field: HAS_ESCAPE of its string value. */
const stringFlags = new Uint8Array(FIELD_NAMES.length);
const FIELD_BYTES = FIELD_NAMES.map((name) => Buffer.from(name));
/** Field index by the hash of its name's bytes (checked for collisions below). */
const FIELD_BY_HASH = new Map<number, number>();
for (let f = 0; f < FIELD_NAMES.length; f++) {
  const h = hashOf(FIELD_BYTES[f]!, 0, FIELD_BYTES[f]!.length);
  if (FIELD_BY_HASH.has(h)) throw new Error(`fast-batch: two field names share a hash (${FIELD_NAMES[f]})`);
  FIELD_BY_HASH.set(h, f);
}

/** The event types' bytes by their hash. */
const TYPE_BY_HASH = new Map<number, Buffer>();
for (const type of EVENT_TYPES) {
  const bytes = Buffer.from(type);
  if (TYPE_BY_HASH.has(hashOf(bytes, 0, bytes.length)))
    throw new Error(`fast-batch: two event types share a hash (${type})`);
  TYPE_BY_HASH.set(hashOf(bytes, 0, bytes.length), bytes);
}

/** The keys of the objects being scanned (for repeated keys): a stack, each object's keys above its parent's. */
const MAX_KEYS = 4096;
/** Wider objects are left to the ordinary path, which keeps the search for repeated keys linear in the body. */
const MAX_KEYS_PER_OBJECT = 64;
const keyHash = new Int32Array(MAX_KEYS);
const keyStart = new Int32Array(MAX_KEYS);
const keyEnd = new Int32Array(MAX_KEYS);
let top = 0;

/** The event is level 1; a field's value level 2, and it may nest MAX_NESTING levels. */
const MAX_LEVEL = MAX_NESTING + 1;

/** Whether `a` from `at` holds the same `length` bytes as `buf` from `from` (a loop: Buffer#compare's call costs more for a few bytes). */
function sameBytes(a: Buffer, at: number, from: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[at + i] !== buf[from + i]) return false;
  return true;
}

function hashOf(bytes: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}

/** The object at `pos` (level `level`), its members' keys checked for repeats; pos ends after it. False: not for this path. */
function scanObject(level: number): boolean {
  if (level > MAX_LEVEL) return false;
  pos++;
  if (buf[pos] === CLOSE_OBJECT) {
    pos++;
    return true;
  }
  const base = top;
  for (;;) {
    // The key: no escape, not starting with a digit (V8 would write array-index keys first).
    if (buf[pos] !== QUOTE) return false;
    const ks = pos + 1;
    let h = 0x811c9dc5;
    let i = ks;
    for (; ; i++) {
      const c = buf[i]!;
      if (PLAIN[c] !== 1) {
        if (c === QUOTE) break;
        return false;
      }
      h = Math.imul(h ^ c, 0x01000193);
    }
    const ke = i;
    const first = buf[ks]!;
    if (first >= DIGIT_0 && first <= DIGIT_9) return false;
    for (let k = base; k < top; k++) {
      if (keyHash[k] === h && keyEnd[k]! - keyStart[k]! === ke - ks && sameBytes(buf, keyStart[k]!, ks, ke - ks))
        return false;
    }
    if (top - base === MAX_KEYS_PER_OBJECT || top === MAX_KEYS) return false;
    keyHash[top] = h;
    keyStart[top] = ks;
    keyEnd[top] = ke;
    top++;
    pos = ke + 1;
    if (buf[pos] !== COLON) return false;
    pos++;
    let field = -1;
    if (level === 1) {
      const f = FIELD_BY_HASH.get(h);
      if (f !== undefined && FIELD_BYTES[f]!.length === ke - ks && sameBytes(FIELD_BYTES[f]!, 0, ks, ke - ks))
        field = f;
    }
    const vs = pos;
    const kind = scanValue(level + 1);
    if (kind < 0) return false;
    if (field >= 0) {
      found[field * 3] = kind;
      // Strings without their quotes.
      found[field * 3 + 1] = kind === STRING ? vs + 1 : vs;
      found[field * 3 + 2] = kind === STRING ? pos - 1 : pos;
      stringFlags[field] = lastStringFlags;
    }
    const c = buf[pos];
    if (c === COMMA) {
      pos++;
    } else if (c === CLOSE_OBJECT) {
      pos++;
      // An event's own keys stay for the caller until the next event; a nested object's go with it.
      if (level > 1) top = base;
      return true;
    } else {
      return false;
    }
  }
}

function scanArray(level: number): boolean {
  if (level > MAX_LEVEL) return false;
  pos++;
  if (buf[pos] === CLOSE_ARRAY) {
    pos++;
    return true;
  }
  for (;;) {
    if (scanValue(level + 1) < 0) return false;
    const c = buf[pos];
    if (c === COMMA) {
      pos++;
    } else if (c === CLOSE_ARRAY) {
      pos++;
      return true;
    } else {
      return false;
    }
  }
}

/** HAS_ESCAPE of the last string value scanned. */
let lastStringFlags = 0;

/** The value at `pos` (a container there is at level `level`): its kind, -1 when not for this path; pos ends after it. */
function scanValue(level: number): number {
  const c = buf[pos]!;
  if (c === QUOTE) {
    let flags = 0;
    let i = pos + 1;
    for (; ; i++) {
      const s = buf[i]!;
      if (PLAIN[s] === 1) continue;
      if (s === QUOTE) break;
      if (s !== BACKSLASH || i >= limit || SIMPLE_ESCAPE[buf[i + 1]!] !== 1) return -1;
      flags = HAS_ESCAPE;
      i++;
    }
    lastStringFlags = flags;
    pos = i + 1;
    return STRING;
  }
  if (c === OPEN_OBJECT) return scanObject(level) ? OBJECT : -1;
  if (c === OPEN_ARRAY) return scanArray(level) ? ARRAY : -1;
  if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) return scanNumber() ? NUMBER : -1;
  if (c === LOWER_T) return literal(TRUE) ? LITERAL : -1;
  if (c === LOWER_F) return literal(FALSE) ? LITERAL : -1;
  if (c === LOWER_N) return literal(NULL) ? LITERAL : -1;
  return -1;
}

/** A number spelt exactly as JavaScript prints its value (which is also valid JSON). */
function scanNumber(): boolean {
  const start = pos;
  let i = pos + (buf[pos] === MINUS ? 1 : 0);
  const firstDigit = i;
  let digitsOnly = true;
  for (; i < limit; i++) {
    const d = buf[i]!;
    if (d >= DIGIT_0 && d <= DIGIT_9) continue;
    if (d === DOT || d === LOWER_E || d === UPPER_E || d === PLUS || d === MINUS) digitsOnly = false;
    else break;
  }
  pos = i;
  const digits = i - firstDigit;
  // Up to 15 digits, without a leading zero or a minus before zero, an integer prints back as written.
  if (
    digitsOnly &&
    digits > 0 &&
    i - start <= 15 &&
    (buf[firstDigit] !== DIGIT_0 || (digits === 1 && firstDigit === start))
  )
    return true;
  const text = buf.toString('latin1', start, i);
  return String(Number(text)) === text;
}

function literal(word: Buffer): boolean {
  if (pos + word.length > limit || !sameBytes(word, 0, pos, word.length)) return false;
  pos += word.length;
  return true;
}

const PREFIX = Buffer.from('{"events":[');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/**
 * Bytes that stand for themselves inside a string: all but control characters, `"` and `\`. Past the body's end the
 * index reads undefined, which is not plain either, so an unterminated string is refused.
 */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 256; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;
