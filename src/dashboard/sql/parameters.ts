import { isIdentPart, isIdentStart, scanSql, type Dialect } from './sql-lexer.ts';

/** A request whose SQL and parameters do not fit together; answered 400 naming the parameters. */
export class ParameterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParameterError';
  }
}

export type ParameterValue =
  | string
  | number
  | boolean
  | null
  | readonly ParameterValue[]
  | { readonly [key: string]: ParameterValue };

export interface BoundStatement {
  /** The SQL with every named parameter replaced by the driver's placeholder (`$n` or `?`). */
  sql: string;
  /** The values in placeholder order, always sent apart from the text. */
  values: unknown[];
}

function readName(sql: string, start: number): string {
  let end = start;
  while (end < sql.length && isIdentPart(sql[end]) && sql[end] !== '$') end++;
  return sql.slice(start, end);
}

/**
 * Replaces `:name` and `@name` in the code regions of `sql` with positional placeholders.
 *
 * - `:name` is a parameter unless it is part of `::type` (a cast), `:=` (assignment), or follows an identifier or
 *   digit directly (`arr[1:n]`, `a:b`), which PostgreSQL reads as array slices.
 * - `@name` is a parameter like `:name` (Document 1), so one not given is 400 naming it. What is not a parameter:
 *   `@@name` (MySQL system variables), a quoted name (`` @`total` ``, `@'total'`: how MySQL user variables are
 *   written here), and `@` not followed by a name (PostgreSQL's absolute-value operator, `@ x`).
 * - PostgreSQL gets one `$n` per distinct name; MySQL gets a `?` per occurrence with the value repeated.
 * - Placeholders the caller wrote themselves (`$1`, `?`) are refused: values are only ever passed by name.
 */
export function bindParameters(
  sql: string,
  parameters: Readonly<Record<string, unknown>>,
  dialect: Dialect,
): BoundStatement {
  const binder = new Binder(parameters, dialect);
  let out = '';
  let copied = 0;
  for (const region of scanSql(sql, dialect)) {
    if (region.kind !== 'code') continue;
    for (let i = region.start; i < region.end; i++) {
      const token = tokenAt(sql, i, dialect);
      if (token?.kind === 'skip') i = token.last;
      else if (token?.kind === 'name') {
        out += sql.slice(copied, i) + binder.placeholder(token.name, token.at);
        copied = i + 1 + token.name.length;
        i = copied - 1;
      }
    }
  }
  binder.checkNames();
  return { sql: out + sql.slice(copied), values: binder.values };
}

type Token = { kind: 'name'; name: string; at: boolean } | { kind: 'skip'; last: number } | undefined;

/** What starts at `sql[i]` of a code region: a named parameter, a run to step over (to `last`), or nothing. */
function tokenAt(sql: string, i: number, dialect: Dialect): Token {
  const ch = sql[i];
  const prev = sql[i - 1];
  const next = sql[i + 1];
  if (ch === ':') {
    // A cast: both colons (the type name after them is not a parameter either).
    if (next === ':') return { kind: 'skip', last: i + 1 };
    if (prev === ':' || isIdentPart(prev) || !isIdentStart(next)) return undefined;
    return { kind: 'name', name: readName(sql, i + 1), at: false };
  }
  if (ch === '@') {
    // @@system_variable: the whole name, so its second @ is not read as a parameter.
    if (next === '@') return { kind: 'skip', last: i + 1 + readName(sql, i + 2).length };
    if (isIdentPart(prev) || !isIdentStart(next)) return undefined;
    return { kind: 'name', name: readName(sql, i + 1), at: true };
  }
  if (ch === '?' && dialect === 'mysql')
    throw new ParameterError(
      'query: "?" placeholders are not accepted; name the parameter (:name) and give its value in parameters',
    );
  if (ch === '$' && dialect === 'postgres' && /[0-9]/.test(next ?? '') && !isIdentPart(prev))
    throw new ParameterError(
      'query: positional placeholders ($1) are not accepted; name the parameter (:name) and give its value in parameters',
    );
  return undefined;
}

/** The values in placeholder order, and which names the statement used or lacked. */
class Binder {
  readonly values: unknown[] = [];
  private readonly parameters: Readonly<Record<string, unknown>>;
  private readonly dialect: Dialect;
  private readonly supplied: Set<string>;
  private readonly used = new Set<string>();
  private readonly missing = new Set<string>();
  /** Names written `@name` that were not given: the hint says how to write what may have been meant. */
  private readonly atNames = new Set<string>();
  private readonly positions = new Map<string, number>();

  constructor(parameters: Readonly<Record<string, unknown>>, dialect: Dialect) {
    this.parameters = parameters;
    this.dialect = dialect;
    this.supplied = new Set(Object.keys(parameters));
  }

  /** PostgreSQL gets one `$n` per distinct name; MySQL a `?` per occurrence with the value repeated. */
  placeholder(name: string, at: boolean): string {
    this.used.add(name);
    if (!this.supplied.has(name)) {
      if (at) this.atNames.add(name);
      this.missing.add(name);
      return '';
    }
    if (this.dialect === 'mysql') {
      this.values.push(this.parameters[name]);
      return '?';
    }
    let n = this.positions.get(name);
    if (n === undefined) {
      this.values.push(this.parameters[name]);
      n = this.values.length;
      this.positions.set(name, n);
    }
    return `$${n}`;
  }

  /** Every name used was given, and every value given is used. */
  checkNames(): void {
    if (this.missing.size > 0) {
      const at = [...this.missing].find((n) => this.atNames.has(n));
      const hint =
        at === undefined
          ? ''
          : this.dialect === 'mysql'
            ? `; a MySQL user variable is written quoted: @\`${at}\``
            : `; PostgreSQL's absolute-value operator takes a space: @ ${at}`;
      throw new ParameterError(
        `parameters: missing ${[...this.missing].map((n) => `"${n}"`).join(', ')} used in the query${hint}`,
      );
    }
    const unused = [...this.supplied].filter((n) => !this.used.has(n));
    if (unused.length > 0)
      throw new ParameterError(`parameters: ${unused.map((n) => `"${n}"`).join(', ')} not used in the query`);
  }
}
