import type { ColumnDescriptor } from './driver.ts';

/** The column definition fields mysql2 reports for each result column. */
export interface MysqlField {
  name: string;
  columnType: number;
  flags: number;
  columnLength: number;
  decimals: number;
  characterSet: number;
}

const NOT_NULL = 1;
const UNSIGNED = 32;
const ENUM = 256;
const SET = 2048;
const BINARY_CHARSET = 63;

const NAMES: Record<number, string> = {
  0: 'DECIMAL',
  1: 'TINYINT',
  2: 'SMALLINT',
  3: 'INT',
  4: 'FLOAT',
  5: 'DOUBLE',
  6: 'NULL',
  7: 'TIMESTAMP',
  8: 'BIGINT',
  9: 'MEDIUMINT',
  10: 'DATE',
  11: 'TIME',
  12: 'DATETIME',
  13: 'YEAR',
  14: 'DATE',
  15: 'VARCHAR',
  16: 'BIT',
  245: 'JSON',
  246: 'DECIMAL',
  247: 'ENUM',
  248: 'SET',
  249: 'TINYBLOB',
  250: 'MEDIUMBLOB',
  251: 'LONGBLOB',
  252: 'BLOB',
  253: 'VARCHAR',
  254: 'CHAR',
  255: 'GEOMETRY',
};
const TEXT_OF_BLOB: Record<number, string> = { 249: 'TINYTEXT', 250: 'MEDIUMTEXT', 251: 'LONGTEXT', 252: 'TEXT' };
const BINARY_OF_STRING: Record<number, string> = { 15: 'VARBINARY', 253: 'VARBINARY', 254: 'BINARY' };

/** Bytes per character of the common collations, so `length` counts characters as the DDL did. */
function bytesPerChar(charset: number): number {
  if (charset === 45 || charset === 46 || (charset >= 224 && charset <= 247) || (charset >= 255 && charset <= 323))
    return 4;
  if (charset === 33 || charset === 83 || (charset >= 192 && charset <= 215)) return 3;
  return 1;
}

function typeName(f: MysqlField): string {
  if (f.flags & ENUM) return 'ENUM';
  if (f.flags & SET) return 'SET';
  const binary = f.characterSet === BINARY_CHARSET;
  if (!binary && TEXT_OF_BLOB[f.columnType]) return TEXT_OF_BLOB[f.columnType]!;
  if (binary && BINARY_OF_STRING[f.columnType]) return BINARY_OF_STRING[f.columnType]!;
  const base = NAMES[f.columnType] ?? `TYPE_${f.columnType}`;
  return f.flags & UNSIGNED && [1, 2, 3, 8, 9].includes(f.columnType) ? `${base} UNSIGNED` : base;
}

export function describeField(f: MysqlField): ColumnDescriptor {
  const c: ColumnDescriptor = { name: f.name, type: typeName(f), nullable: (f.flags & NOT_NULL) === 0 };
  switch (f.columnType) {
    case 0:
    case 246:
      c.precision = f.columnLength - (f.decimals > 0 ? 1 : 0) - (f.flags & UNSIGNED ? 0 : 1);
      c.scale = f.decimals;
      break;
    case 15:
    case 253:
    case 254:
      if (!(f.flags & (ENUM | SET))) c.length = Math.floor(f.columnLength / bytesPerChar(f.characterSet));
      break;
    case 7:
    case 11:
    case 12:
      c.precision = f.decimals;
      break;
  }
  return c;
}

type Convert = (value: unknown) => unknown;

const base64: Convert = (v) => (Buffer.isBuffer(v) ? v.toString('base64') : v);
const dateTime: Convert = (v) => (typeof v === 'string' && v[10] === ' ' ? `${v.slice(0, 10)}T${v.slice(11)}` : v);
// TIMESTAMP is stored as an instant and read in the session's time zone, which the driver sets to UTC.
const timestamp: Convert = (v) =>
  typeof v === 'string' && v[10] === ' ' && !v.startsWith('0000') ? `${v.slice(0, 10)}T${v.slice(11)}Z` : v;

/**
 * How a column's values become JSON, or undefined when the driver's value already is (numbers, the strings mysql2
 * gives for BIGINT and DECIMAL, dates as text). DATETIME gets ISO 8601's `T`, TIMESTAMP also `Z`; binary strings,
 * blobs and BIT as base64. Zero dates ('0000-00-00') are passed through as MySQL wrote them.
 */
export function converterFor(f: MysqlField): Convert | undefined {
  if (f.columnType === 12) return dateTime;
  if (f.columnType === 7) return timestamp;
  if (f.columnType === 16) return base64;
  if (f.characterSet === BINARY_CHARSET && [15, 249, 250, 251, 252, 253, 254].includes(f.columnType)) return base64;
  return undefined;
}
