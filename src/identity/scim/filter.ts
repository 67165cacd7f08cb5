import { parse, type AttrExp, type Filter } from 'scim2-parse-filter';
import { scimError } from './errors.ts';
import { GROUP_URN, USER_URN } from './user.ts';

/**
 * RFC 7644 3.4.2.2 filters on Users and Groups, parsed by scim2-parse-filter and translated here into a SQL condition
 * with parameters, never text of the filter in the SQL. What can be filtered is listed per resource type (USER_FILTERS,
 * GROUP_FILTERS); anything else, and an operator an attribute does not take, is a 400 `invalidFilter` saying so.
 *
 * The parser's tokenizer backtracks exponentially on an unclosed string holding line breaks (`"` then 30 newlines
 * takes seconds), so control characters are refused before it runs, and so is a filter longer than MAX_FILTER.
 */
export const MAX_FILTER = 1000;
const MAX_TERMS = 50;

/** The SQL of one attribute of the listed rows. */
interface Column {
  sql: string;
  kind: 'text' | 'boolean' | 'time';
  /** Compared exactly (RFC 7643 `caseExact`); otherwise in any case. */
  exact?: boolean;
}

/** A multi-valued attribute: a condition on one of its values (`e`), and its sub-attributes. */
interface MultiValued {
  any(condition: string): string;
  sub: Record<string, Column>;
}

/** What can be filtered of one resource type: its attributes, and its multi-valued attributes. */
export interface Filterable {
  attributes: Record<string, Column>;
  multi: Record<string, MultiValued>;
}

/** The emails answered for a row (user.ts emailsOf): those the directory sent, or the sign-in email. */
const EMAILS = `CASE WHEN jsonb_array_length(u.emails) = 0
  THEN jsonb_build_array(jsonb_build_object('value', h.email, 'type', 'work', 'primary', true)) ELSE u.emails END`;

/** Users (aliases of users-store.ts: p principals, h humans, u scim_users). */
export const USER_FILTERS: Filterable = {
  attributes: {
    id: { sql: 'p.id::text', kind: 'text', exact: true },
    username: { sql: 'h.email', kind: 'text' },
    externalid: { sql: 'u.external_id', kind: 'text', exact: true },
    displayname: { sql: 'p.display_name', kind: 'text' },
    'name.givenname': { sql: 'h.given_name', kind: 'text' },
    'name.familyname': { sql: 'h.family_name', kind: 'text' },
    active: { sql: 'p.active', kind: 'boolean' },
    'meta.created': { sql: 'u.created_at', kind: 'time' },
    'meta.lastmodified': { sql: 'greatest(p.updated_at, u.updated_at)', kind: 'time' },
  },
  multi: {
    emails: {
      any: (condition) => `EXISTS (SELECT 1 FROM jsonb_array_elements(${EMAILS}) e WHERE ${condition})`,
      sub: {
        value: { sql: "(e->>'value')", kind: 'text' },
        type: { sql: "(e->>'type')", kind: 'text' },
        display: { sql: "(e->>'display')", kind: 'text' },
        primary: { sql: "coalesce((e->>'primary')::boolean, false)", kind: 'boolean' },
      },
    },
  },
};

/** Groups (aliases of groups-store.ts: o organizations, g scim_groups); members are the connection's people. */
export const GROUP_FILTERS: Filterable = {
  attributes: {
    id: { sql: 'o.id::text', kind: 'text', exact: true },
    displayname: { sql: 'o.name', kind: 'text' },
    externalid: { sql: 'g.external_id', kind: 'text', exact: true },
    'meta.created': { sql: 'g.created_at', kind: 'time' },
    'meta.lastmodified': { sql: 'greatest(o.updated_at, g.updated_at)', kind: 'time' },
  },
  multi: {
    members: {
      any: (condition) => `EXISTS (SELECT 1 FROM principal_memberships e
          JOIN scim_users su ON su.principal_id = e.principal_id AND su.connection_id = g.connection_id AND su.deleted_at IS NULL
         WHERE e.organization_id = o.id AND e.active AND ${condition})`,
      sub: { value: { sql: 'e.principal_id::text', kind: 'text', exact: true } },
    },
  },
};

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
  for (const urn of [USER_URN, GROUP_URN]) {
    const prefix = `${urn.toLowerCase()}:`;
    if (lower.startsWith(prefix)) return lower.slice(prefix.length);
  }
  return lower;
}

/** The email of a filter that is exactly `userName eq "…"` (a directory's match step), else undefined. */
export function userNameEquals(text: string): string | undefined {
  const f = parseFilter(text);
  if (f.op !== 'eq' || attributeName(f.attrPath) !== 'username') return undefined;
  return typeof f.compValue === 'string' ? f.compValue : undefined;
}

/** Builds the SQL of a filter, numbering its parameters after `first` ones the caller already has. */
export function filterSql(filter: Filter, first: number, resource: Filterable): SqlFilter {
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

  /** A condition on one value `e` of a multi-valued attribute: a value path's filter, or a sub-attribute's comparison. */
  const valueCondition = (name: string, multi: MultiValued, f: Filter): string => {
    if (f.op === 'and' || f.op === 'or')
      return `(${f.filters.map((x) => valueCondition(name, multi, x)).join(` ${f.op.toUpperCase()} `)})`;
    if (f.op === 'not') return `(NOT ${valueCondition(name, multi, f.filter)})`;
    if (f.op === '[]') throw invalid('a value path inside a value path');
    // What is left is a comparison (the parser's union does not narrow on `op` past the logical operators).
    const leaf = f as AttrExp;
    const attr = attributeName(leaf.attrPath);
    const sub = attr === name ? 'value' : attr.startsWith(`${name}.`) ? attr.slice(name.length + 1) : attr;
    const column = multi.sub[sub];
    if (!column)
      throw invalid(
        `${name} has no sub-attribute "${leaf.attrPath}" to filter by (${Object.keys(multi.sub).join(', ')})`,
      );
    return compare(column, leaf.op, 'compValue' in leaf ? leaf.compValue : undefined, `${name}.${sub}`);
  };
  const multiNamed = (path: string): [string, MultiValued] | undefined => {
    const name = attributeName(path).split('.')[0]!;
    const multi = Object.hasOwn(resource.multi, name) ? resource.multi[name] : undefined;
    return multi ? [name, multi] : undefined;
  };

  const walk = (f: Filter, depth: number): string => {
    if (depth > 20) throw invalid('the filter nests too deep');
    switch (f.op) {
      case 'and':
      case 'or': {
        // The parser turns `emails[type eq "work"].value eq "x"` into `and` of the value path and `emails.value eq
        // "x"`: taken back together, both must hold of the same value, as RFC 7644 3.4.2.2 means it.
        const [a, b] = f.filters;
        if (f.op === 'and' && f.filters.length === 2 && a?.op === '[]' && b && b.op !== '[]' && 'attrPath' in b) {
          const path = attributeName(a.attrPath);
          if (attributeName(b.attrPath).startsWith(`${path}.`)) {
            const named = multiNamed(a.attrPath);
            if (!named) throw invalid(`"${a.attrPath}" is not a multi-valued attribute to filter by`);
            const [name, multi] = named;
            return multi.any(`${valueCondition(name, multi, a.valFilter)} AND ${valueCondition(name, multi, b)}`);
          }
        }
        return `(${f.filters.map((x) => walk(x, depth + 1)).join(` ${f.op.toUpperCase()} `)})`;
      }
      case 'not':
        return `(NOT ${walk(f.filter, depth + 1)})`;
      case '[]': {
        const named = multiNamed(f.attrPath);
        if (!named || attributeName(f.attrPath) !== named[0])
          throw invalid(`"${f.attrPath}" is not a multi-valued attribute to filter by`);
        return named[1].any(valueCondition(named[0], named[1], f.valFilter));
      }
      default: {
        const named = multiNamed(f.attrPath);
        if (named) return named[1].any(valueCondition(named[0], named[1], f));
        const name = attributeName(f.attrPath);
        const column = Object.hasOwn(resource.attributes, name) ? resource.attributes[name] : undefined;
        if (!column)
          throw invalid(
            `"${f.attrPath}" cannot be filtered by; these can: ${[...Object.keys(resource.attributes), ...Object.keys(resource.multi)].join(', ')}`,
          );
        return compare(column, f.op, 'compValue' in f ? f.compValue : undefined, f.attrPath);
      }
    }
  };
  return { sql: walk(filter, 0), params };
}
