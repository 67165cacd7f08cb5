import { parse, type AttrExp, type Filter } from 'scim2-parse-filter';
import { scimError } from './errors.ts';
import { USER_URN } from './user.ts';

/**
 * RFC 7644 3.4.2.2 filters on Users, parsed by scim2-parse-filter and translated here into a SQL condition with
 * parameters, never text of the filter in the SQL. What can be filtered is listed (ATTRIBUTES, and the sub-attributes of
 * `emails`); anything else, and an operator an attribute does not take, is a 400 `invalidFilter` saying so.
 *
 * The parser's tokenizer backtracks exponentially on an unclosed string holding line breaks (`"` then 30 newlines
 * takes seconds), so control characters are refused before it runs, and so is a filter longer than MAX_FILTER.
 */
export const MAX_FILTER = 1000;
const MAX_TERMS = 50;

/** The SQL of one attribute of the listed rows (aliases of users/store.ts: p principals, h humans, u scim_users). */
interface Column {
  sql: string;
  kind: 'text' | 'boolean' | 'time';
  /** Compared exactly (RFC 7643 `caseExact`); otherwise in any case. */
  exact?: boolean;
}

const ATTRIBUTES: Record<string, Column> = {
  id: { sql: 'p.id::text', kind: 'text', exact: true },
  username: { sql: 'h.email', kind: 'text' },
  externalid: { sql: 'u.external_id', kind: 'text', exact: true },
  displayname: { sql: 'p.display_name', kind: 'text' },
  'name.givenname': { sql: 'h.given_name', kind: 'text' },
  'name.familyname': { sql: 'h.family_name', kind: 'text' },
  active: { sql: 'p.active', kind: 'boolean' },
  'meta.created': { sql: 'u.created_at', kind: 'time' },
  'meta.lastmodified': { sql: 'greatest(p.updated_at, u.updated_at)', kind: 'time' },
};

/** The sub-attributes of one element `e` of the answered emails (jsonb). */
const EMAIL_ATTRIBUTES: Record<string, Column> = {
  value: { sql: "(e->>'value')", kind: 'text' },
  type: { sql: "(e->>'type')", kind: 'text' },
  display: { sql: "(e->>'display')", kind: 'text' },
  primary: { sql: "coalesce((e->>'primary')::boolean, false)", kind: 'boolean' },
};

/** The emails answered for a row (user.ts emailsOf): those the directory sent, or the sign-in email. */
const EMAILS = `CASE WHEN jsonb_array_length(u.emails) = 0
  THEN jsonb_build_array(jsonb_build_object('value', h.email, 'type', 'work', 'primary', true)) ELSE u.emails END`;

export interface SqlFilter {
  sql: string;
  params: unknown[];
}

const invalid = (detail: string) => scimError(400, 'invalidFilter', detail);

/** A filter's AST, or a 400 `invalidFilter` with the parser's reason. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER) throw invalid(`the filter must be at most ${MAX_FILTER} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(text)) throw invalid('the filter must not contain control characters');
  try {
    return parse(text);
  } catch (err) {
    throw invalid(`the filter is not one SCIM can read: ${(err as Error).message}`);
  }
}

/** RFC 7644 3.10: an attribute named by its full URN is the same attribute. */
function attributeName(path: string): string {
  const lower = path.toLowerCase();
  const prefix = `${USER_URN.toLowerCase()}:`;
  return lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
}

/** Builds the SQL of a filter, numbering its parameters after `first` ones the caller already has. */
export function filterSql(filter: Filter, first: number): SqlFilter {
  const params: unknown[] = [];
  let terms = 0;
  const param = (v: unknown) => {
    params.push(v);
    return `$${first + params.length}`;
  };

  const compare = (column: Column, op: string, value: unknown, what: string): string => {
    if (++terms > MAX_TERMS) throw scimError(400, 'tooMany', `at most ${MAX_TERMS} comparisons in a filter`);
    if (op === 'pr') return column.kind === 'text' ? `(${column.sql} IS NOT NULL AND ${column.sql} <> '')` : 'true';
    if (column.kind === 'boolean') {
      if (typeof value !== 'boolean') throw invalid(`${what} is compared with true or false`);
      if (op === 'eq') return `(${column.sql} = ${param(value)})`;
      if (op === 'ne') return `(${column.sql} <> ${param(value)})`;
      throw invalid(`${what} takes eq, ne and pr`);
    }
    if (column.kind === 'time') {
      const time = typeof value === 'string' ? new Date(value) : undefined;
      if (!time || Number.isNaN(time.getTime())) throw invalid(`${what} is compared with a date and time (ISO 8601)`);
      const sqlOp = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }[op];
      if (!sqlOp) throw invalid(`${what} takes eq, ne, gt, ge, lt, le and pr`);
      return `(date_trunc('milliseconds', ${column.sql}) ${sqlOp} ${param(time.toISOString())}::timestamptz)`;
    }
    if (typeof value !== 'string') throw invalid(`${what} is compared with a string`);
    const col = column.exact ? column.sql : `lower(${column.sql})`;
    const v = param(column.exact ? value : value.toLowerCase());
    switch (op) {
      case 'eq':
        return `(${col} = ${v})`;
      case 'ne':
        return `(${col} IS NULL OR ${col} <> ${v})`;
      case 'co':
        return `(strpos(${col}, ${v}) > 0)`;
      case 'sw':
        return `starts_with(${col}, ${v})`;
      case 'ew':
        return `(right(${col}, length(${v})) = ${v})`;
      default:
        throw invalid(`${what} takes eq, ne, co, sw, ew and pr`);
    }
  };

  /** A condition on one element `e` of emails: a value path's filter, or a comparison of a sub-attribute. */
  const emailCondition = (f: Filter): string => {
    if (f.op === 'and' || f.op === 'or') return `(${f.filters.map(emailCondition).join(` ${f.op.toUpperCase()} `)})`;
    if (f.op === 'not') return `(NOT ${emailCondition(f.filter)})`;
    if (f.op === '[]') throw invalid('a value path inside a value path');
    // What is left is a comparison (the parser's union does not narrow on `op` past the logical operators).
    const leaf = f as AttrExp;
    const name = attributeName(leaf.attrPath).replace(/^emails\./, '');
    const column = EMAIL_ATTRIBUTES[name];
    if (!column)
      throw invalid(`emails has no sub-attribute "${leaf.attrPath}" to filter by (value, type, primary, display)`);
    return compare(column, leaf.op, 'compValue' in leaf ? leaf.compValue : undefined, `emails.${name}`);
  };
  const anyEmail = (condition: string) => `EXISTS (SELECT 1 FROM jsonb_array_elements(${EMAILS}) e WHERE ${condition})`;

  const walk = (f: Filter, depth: number): string => {
    if (depth > 20) throw invalid('the filter nests too deep');
    switch (f.op) {
      case 'and':
      case 'or': {
        // The parser turns `emails[type eq "work"].value eq "x"` into `and` of the value path and `emails.value eq
        // "x"`: taken back together, both must hold of the same address, as RFC 7644 3.4.2.2 means it.
        const [a, b] = f.filters;
        if (f.op === 'and' && f.filters.length === 2 && a?.op === '[]' && b && b.op !== '[]' && 'attrPath' in b) {
          const path = attributeName(a.attrPath);
          if (attributeName(b.attrPath).startsWith(`${path}.`)) {
            if (path !== 'emails') throw invalid(`"${a.attrPath}" is not a multi-valued attribute to filter by`);
            return anyEmail(`${emailCondition(a.valFilter)} AND ${emailCondition(b)}`);
          }
        }
        return `(${f.filters.map((x) => walk(x, depth + 1)).join(` ${f.op.toUpperCase()} `)})`;
      }
      case 'not':
        return `(NOT ${walk(f.filter, depth + 1)})`;
      case '[]':
        if (attributeName(f.attrPath) !== 'emails')
          throw invalid(`"${f.attrPath}" is not a multi-valued attribute to filter by (emails is)`);
        return anyEmail(emailCondition(f.valFilter));
      default: {
        const name = attributeName(f.attrPath);
        if (name === 'emails' || name.startsWith('emails.')) return anyEmail(emailCondition(f));
        const column = ATTRIBUTES[name];
        if (!column)
          throw invalid(
            `"${f.attrPath}" cannot be filtered by: id, userName, externalId, displayName, name.givenName, name.familyName, active, emails (value, type, primary), meta.created, meta.lastModified`,
          );
        return compare(column, f.op, 'compValue' in f ? f.compValue : undefined, f.attrPath);
      }
    }
  };
  return { sql: walk(filter, 0), params };
}
