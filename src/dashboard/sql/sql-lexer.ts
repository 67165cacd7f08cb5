/**
 * A single pass over SQL text that tells code from what must never be read as code: string literals, quoted
 * identifiers, comments and PostgreSQL dollar-quoted bodies. Parameter binding, the one-statement rule and the
 * read-only pre-check all look only at the `code` regions it reports, so a `:name`, a `;` or a `DELETE` inside a
 * literal or a comment is left alone.
 *
 * MySQL and MariaDB run what an executable comment encloses: `/*!`, `/*!50110`, MariaDB's `/*M!` and `/*M!100101`
 * open one, `*\/` closes it. For the MySQL dialect only those markers are comments and what they enclose is code,
 * whatever version the marker names, so `SELECT 1 /*! INTO OUTFILE '/tmp/x' *\/` is read as the write it is. Inside
 * one nothing else is taken for a comment. Both choices can only make the checks see more code, never less.
 */
export type Dialect = 'postgres' | 'mysql';

export interface Region {
  kind: 'code' | 'literal' | 'comment';
  start: number;
  end: number;
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

export function isIdentStart(ch: string | undefined): boolean {
  return ch !== undefined && IDENT_START.test(ch);
}

export function isIdentPart(ch: string | undefined): boolean {
  return ch !== undefined && IDENT_PART.test(ch);
}

/** End (exclusive) of a quoted run opened at `start`; `backslash` lets `\x` escape the next character. */
function quotedEnd(sql: string, start: number, quote: string, backslash: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (backslash && ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

function blockCommentEnd(sql: string, start: number, nested: boolean): number {
  let depth = 1;
  let i = start + 2;
  while (i < sql.length) {
    if (nested && sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

function lineCommentEnd(sql: string, start: number): number {
  const nl = sql.indexOf('\n', start);
  return nl === -1 ? sql.length : nl + 1;
}

/** `$tag$` opening at `start` (PostgreSQL), or undefined when the `$` starts something else (`$1`, an identifier's `$`). */
function dollarTag(sql: string, start: number): string | undefined {
  if (isIdentPart(sql[start - 1])) return undefined;
  let i = start + 1;
  if (sql[i] === '$') return '$$';
  if (!isIdentStart(sql[i])) return undefined;
  while (i < sql.length && isIdentPart(sql[i]) && sql[i] !== '$') i++;
  return sql[i] === '$' ? sql.slice(start, i + 1) : undefined;
}

/** Length of a comment starting at `i`, or 0. MySQL's `--` needs whitespace after it and `#` starts a comment. */
function commentEnd(sql: string, i: number, dialect: Dialect): number {
  const ch = sql[i];
  const next = sql[i + 1];
  if (ch === '-' && next === '-') {
    if (dialect === 'postgres') return lineCommentEnd(sql, i);
    const after = sql[i + 2];
    if (after === undefined || /\s/.test(after)) return lineCommentEnd(sql, i);
  }
  if (ch === '#' && dialect === 'mysql') return lineCommentEnd(sql, i);
  if (ch === '/' && next === '*') return blockCommentEnd(sql, i, dialect === 'postgres');
  return 0;
}

/** End of a literal or quoted identifier starting at `i`, or 0 when none starts there. */
function literalEnd(sql: string, i: number, dialect: Dialect): number {
  const ch = sql[i]!;
  if (dialect === 'postgres') {
    if (ch === "'") {
      // E'...' (any case) takes backslash escapes; a plain literal does not (standard_conforming_strings, on since 9.1).
      const prefix = sql[i - 1];
      const escaped = (prefix === 'E' || prefix === 'e') && !isIdentPart(sql[i - 2]);
      return quotedEnd(sql, i, "'", escaped);
    }
    if (ch === '"') return quotedEnd(sql, i, '"', false);
    if (ch === '$') {
      const tag = dollarTag(sql, i);
      if (tag === undefined) return 0;
      const close = sql.indexOf(tag, i + tag.length);
      return close === -1 ? sql.length : close + tag.length;
    }
    return 0;
  }
  if (ch === "'" || ch === '"') return quotedEnd(sql, i, ch, true);
  if (ch === '`') return quotedEnd(sql, i, '`', false);
  return 0;
}

/** End of an executable comment's opening marker (`/*!` or `/*M!`, then a version number) at `i`, or 0. */
function executableOpening(sql: string, i: number): number {
  if (sql[i] !== '/' || sql[i + 1] !== '*') return 0;
  let j = i + 2;
  if (sql[j] === 'M') j++;
  if (sql[j] !== '!') return 0;
  j++;
  while (j < sql.length && sql[j]! >= '0' && sql[j]! <= '9') j++;
  return j;
}

export function scanSql(sql: string, dialect: Dialect): Region[] {
  const regions: Region[] = [];
  let codeStart = 0;
  let i = 0;
  let executable = false;
  const flush = (end: number) => {
    if (end > codeStart) regions.push({ kind: 'code', start: codeStart, end });
  };
  const marker = (end: number) => {
    flush(i);
    regions.push({ kind: 'comment', start: i, end });
    i = codeStart = end;
  };
  while (i < sql.length) {
    if (dialect === 'mysql') {
      if (executable && sql[i] === '*' && sql[i + 1] === '/') {
        marker(i + 2);
        executable = false;
        continue;
      }
      const opening = executable ? 0 : executableOpening(sql, i);
      if (opening > 0) {
        marker(opening);
        executable = true;
        continue;
      }
    }
    const c = executable ? 0 : commentEnd(sql, i, dialect);
    if (c > 0) {
      marker(c);
      continue;
    }
    const l = literalEnd(sql, i, dialect);
    if (l > 0) {
      flush(i);
      regions.push({ kind: 'literal', start: i, end: l });
      i = codeStart = l;
      continue;
    }
    i++;
  }
  flush(sql.length);
  return regions;
}
