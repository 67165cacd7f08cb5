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
  const supplied = new Set(Object.keys(parameters));
  const used = new Set<string>();
  const missing = new Set<string>();
  const atNames = new Set<string>();
  const values: unknown[] = [];
  const positions = new Map<string, number>();
  let out = '';
  let copied = 0;

  const placeholder = (name: string): string => {
    used.add(name);
    if (!supplied.has(name)) {
      missing.add(name);
      return '';
    }
    if (dialect === 'mysql') {
      values.push(parameters[name]);
      return '?';
    }
    let n = positions.get(name);
    if (n === undefined) {
      values.push(parameters[name]);
      n = values.length;
      positions.set(name, n);
    }
    return `$${n}`;
  };

  for (const region of scanSql(sql, dialect)) {
    if (region.kind !== 'code') continue;
    for (let i = region.start; i < region.end; i++) {
      const ch = sql[i];
      const prev = sql[i - 1];
      if (ch === ':') {
        if (sql[i + 1] === ':') {
          // A cast: skip both colons and the type name after them.
          i++;
          continue;
        }
        if (prev === ':' || isIdentPart(prev) || !isIdentStart(sql[i + 1])) continue;
        const name = readName(sql, i + 1);
        out += sql.slice(copied, i) + placeholder(name);
        copied = i + 1 + name.length;
        i = copied - 1;
      } else if (ch === '@') {
        if (sql[i + 1] === '@') {
          // @@system_variable: step over the whole name so its second @ is not read as a parameter.
          i += 1 + readName(sql, i + 2).length;
          continue;
        }
        if (isIdentPart(prev) || !isIdentStart(sql[i + 1])) continue;
        const name = readName(sql, i + 1);
        if (!supplied.has(name)) atNames.add(name);
        out += sql.slice(copied, i) + placeholder(name);
        copied = i + 1 + name.length;
        i = copied - 1;
      } else if (ch === '?' && dialect === 'mysql') {
        throw new ParameterError(
          'query: "?" placeholders are not accepted; name the parameter (:name) and give its value in parameters',
        );
      } else if (ch === '$' && dialect === 'postgres' && /[0-9]/.test(sql[i + 1] ?? '') && !isIdentPart(prev)) {
        throw new ParameterError(
          'query: positional placeholders ($1) are not accepted; name the parameter (:name) and give its value in parameters',
        );
      }
    }
  }
  out += sql.slice(copied);

  if (missing.size > 0) {
    const at = [...missing].find((n) => atNames.has(n));
    const hint =
      at === undefined
        ? ''
        : dialect === 'mysql'
          ? `; a MySQL user variable is written quoted: @\`${at}\``
          : `; PostgreSQL's absolute-value operator takes a space: @ ${at}`;
    throw new ParameterError(
      `parameters: missing ${[...missing].map((n) => `"${n}"`).join(', ')} used in the query${hint}`,
    );
  }
  const unused = [...supplied].filter((n) => !used.has(n));
  if (unused.length > 0)
    throw new ParameterError(`parameters: ${unused.map((n) => `"${n}"`).join(', ')} not used in the query`);
  return { sql: out, values };
}
