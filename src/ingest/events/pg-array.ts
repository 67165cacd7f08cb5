/**
 * PostgreSQL's binary array format, built by hand so a group commit hands PostgreSQL its columns ready to store:
 * `pg` sends a Buffer parameter in binary format, so `$1::text[]` or `$1::json[]` arrives as length-prefixed
 * elements that PostgreSQL copies without parsing an array literal (no quoting, no escaping on either side).
 * Layout: ndim, has-nulls flag, element type oid, then per dimension its length and lower bound, then each
 * element as a 4-byte length and its bytes (the element type's binary form; for text and json that is the UTF-8 text).
 */

export const TEXT_OID = 25;
export const JSON_OID = 114;
export const TIMESTAMPTZ_OID = 1184;

/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC), which binary timestamps count from. */
const PG_EPOCH_MICROS = Date.UTC(2000, 0, 1) * 1000;

/**
 * Instants (milliseconds since the Unix epoch) as timestamptz elements: 8 bytes of microseconds since 2000, so
 * PostgreSQL does not parse a date text per row. The values stay below 2^53, so they are split exactly into two halves.
 */
export function encodeTimestamps(millis: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(12 * millis.length);
  for (let i = 0; i < millis.length; i++) {
    const micros = millis[i]! * 1000 - PG_EPOCH_MICROS;
    const high = Math.floor(micros / 2 ** 32);
    out.writeInt32BE(8, i * 12);
    out.writeInt32BE(high, i * 12 + 4);
    out.writeUInt32BE(micros - high * 2 ** 32, i * 12 + 8);
  }
  return out;
}

/** encodeTimestamps' output back to milliseconds since the Unix epoch. */
export function decodeTimestamps(elements: Buffer): number[] {
  const millis: number[] = [];
  for (let at = 0; at < elements.length; at += 12) {
    millis.push((elements.readInt32BE(at + 4) * 2 ** 32 + elements.readUInt32BE(at + 8) + PG_EPOCH_MICROS) / 1000);
  }
  return millis;
}

/** Elements of one array, each a 4-byte big-endian length and the UTF-8 bytes of the string. */
export function encodeElements(values: readonly string[]): Buffer {
  let size = 4 * values.length;
  const lengths = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) size += lengths[i] = Buffer.byteLength(values[i]!);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    out.writeInt32BE(lengths[i]!, at);
    at += 4;
    at += out.write(values[i]!, at, lengths[i]!, 'utf8');
  }
  return out;
}

/** The same element `count` times (a request's project id for each of its events). */
export function repeatElement(value: string, count: number): Buffer {
  const one = encodeElements([value]);
  const out = Buffer.allocUnsafe(one.length * count);
  for (let i = 0; i < count; i++) one.copy(out, i * one.length);
  return out;
}

/** A one-dimensional array (no NULLs) of `count` elements of type `oid`, from pieces made by encodeElements. */
export function binaryArray(oid: number, count: number, pieces: readonly Buffer[]): Buffer {
  const head = Buffer.allocUnsafe(20);
  head.writeInt32BE(1, 0);
  head.writeInt32BE(0, 4);
  head.writeUInt32BE(oid, 8);
  head.writeInt32BE(count, 12);
  head.writeInt32BE(1, 16);
  return Buffer.concat([head, ...pieces]);
}

/** The strings back from encodeElements' output (for the embedded database, which takes text, and for tests). */
export function decodeElements(elements: Buffer): string[] {
  const values: string[] = [];
  for (let at = 0; at < elements.length; ) {
    const length = elements.readInt32BE(at);
    at += 4;
    values.push(elements.toString('utf8', at, at + length));
    at += length;
  }
  return values;
}

/** COPY's binary format: signature, flags (no OIDs), an empty header extension. */
const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);

/**
 * Rows for `COPY … FROM STDIN (FORMAT binary)` from columns laid out by encodeElements/encodeTimestamps: a field in
 * COPY's binary format is the same 4-byte length and bytes as an array element, so each row is a field count and
 * one element of each column in turn. `columns` are lists of pieces (one per request) of `count` elements in all.
 */
export function copyRows(count: number, columns: readonly (readonly Buffer[])[]): Buffer {
  let size = COPY_HEADER.length + 2 * count + 2;
  for (const pieces of columns) for (const piece of pieces) size += piece.length;
  const out = Buffer.allocUnsafe(size);
  let at = COPY_HEADER.copy(out, 0);
  // Per column: the piece being read and where in it.
  const piece = new Array<number>(columns.length).fill(0);
  const offset = new Array<number>(columns.length).fill(0);
  for (let row = 0; row < count; row++) {
    out.writeInt16BE(columns.length, at);
    at += 2;
    for (let c = 0; c < columns.length; c++) {
      const pieces = columns[c]!;
      let source = pieces[piece[c]!]!;
      while (offset[c] === source.length) {
        source = pieces[++piece[c]!]!;
        offset[c] = 0;
      }
      const start = offset[c]!;
      const end = start + 4 + source.readInt32BE(start);
      at += source.copy(out, at, start, end);
      offset[c] = end;
    }
  }
  out.writeInt16BE(-1, at);
  return out;
}
