import pg from 'pg';

/**
 * How PostgreSQL values become JSON. Parsing happens in the driver's type parsers, so each value is converted once
 * as it is read: integers up to int4 and floats as numbers (NaN and ±Infinity as strings), int8, numeric and money
 * as strings (their digits kept), dates and timestamps as ISO 8601 text (timestamptz in UTC with `Z`, microseconds
 * kept), intervals in ISO 8601 (the session's IntervalStyle), json and jsonb parsed, bytea as base64, arrays as JSON
 * arrays of the same, anything else as the text PostgreSQL sends.
 */
type Parser = (value: string) => unknown;

const asNumber: Parser = (v) => Number(v);
const asFloat: Parser = (v) => {
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
};
const asBool: Parser = (v) => v === 't';
const asJson: Parser = (v) => JSON.parse(v);
const asBase64: Parser = (v) => (v.startsWith('\\x') ? Buffer.from(v.slice(2), 'hex').toString('base64') : v);
const asTimestamp: Parser = (v) => (v.length > 10 && v[10] === ' ' ? `${v.slice(0, 10)}T${v.slice(11)}` : v);
const asTimestampTz: Parser = (v) => {
  const t = asTimestamp(v) as string;
  if (t.endsWith('+00')) return `${t.slice(0, -3)}Z`;
  return /[+-]\d\d$/.test(t) ? `${t}:00` : t;
};

const SCALARS = new Map<number, Parser>([
  [16, asBool],
  [21, asNumber],
  [23, asNumber],
  [26, asNumber],
  [700, asFloat],
  [701, asFloat],
  [114, asJson],
  [3802, asJson],
  [17, asBase64],
  [1114, asTimestamp],
  [1184, asTimestampTz],
]);

/** Array type oid → element type oid, for the element types above. */
const ARRAYS = new Map<number, number>([
  [1000, 16],
  [1005, 21],
  [1007, 23],
  [1028, 26],
  [1021, 700],
  [1022, 701],
  [199, 114],
  [3807, 3802],
  [1001, 17],
  [1115, 1114],
  [1185, 1184],
]);

/** Array types whose elements stay text (int8, numeric, uuid, dates, ...). Arrays of user-defined types are sent as PostgreSQL's text. */
const TEXT_ARRAYS = new Set([
  1009, 1015, 1014, 1016, 1231, 2951, 1182, 1183, 1270, 1187, 791, 1041, 651, 1040, 143, 1561, 1563, 1002, 1003,
]);

const identity: Parser = (v) => v;
const textArray = (pg.types.getTypeParser as (oid: number, format: 'text') => (v: string) => unknown)(1009, 'text');

function mapNested(value: unknown, parse: Parser): unknown {
  if (Array.isArray(value)) return value.map((e) => mapNested(e, parse));
  return value === null ? null : parse(value as string);
}

function parserFor(oid: number): Parser {
  const scalar = SCALARS.get(oid);
  if (scalar) return scalar;
  const element = ARRAYS.get(oid);
  if (element !== undefined) {
    const parse = SCALARS.get(element)!;
    return (v) => mapNested(textArray(v), parse);
  }
  if (TEXT_ARRAYS.has(oid)) return (v) => textArray(v);
  return identity;
}

const parsers = new Map<number, Parser>();

/** Per-query type parsers: the kit's global pg setting (int8 as number) must not reach data source results. */
export const jsonSafeTypes = {
  getTypeParser(oid: number): Parser {
    let p = parsers.get(oid);
    if (!p) {
      p = parserFor(oid);
      parsers.set(oid, p);
    }
    return p;
  },
};
