import { scanSql, type Dialect } from './sql-lexer.ts';

/** SQL refused before it reaches the database; answered 400 VALIDATION_ERROR. */
export class StatementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementError';
  }
}

/** The words of the code regions in order, upper-cased, with `;` kept as its own word. */
function codeWords(sql: string, dialect: Dialect): string[] {
  const words: string[] = [];
  for (const r of scanSql(sql, dialect)) {
    if (r.kind !== 'code') continue;
    for (const m of sql.slice(r.start, r.end).matchAll(/[A-Za-z_][A-Za-z0-9_$]*|;/g)) words.push(m[0].toUpperCase());
  }
  return words;
}

const TRANSACTION_CONTROL = new Set([
  'BEGIN',
  'START',
  'COMMIT',
  'END',
  'ROLLBACK',
  'ABORT',
  'SAVEPOINT',
  'RELEASE',
  'PREPARE',
  'XA',
]);
const READ_STARTS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN', 'DESCRIBE', 'DESC']);
// Words that make a statement starting like a read write anyway (a writable CTE, EXPLAIN ANALYZE DELETE, FOR UPDATE).
// Function names that are also statements elsewhere (MySQL's REPLACE() and TRUNCATE()) are deliberately absent.
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * The checks every query passes before it runs: one statement (a `;` may only end the text), no transaction
 * control (each query already runs in a transaction of its own), and the text is not empty. The database refuses a
 * second statement too (extended protocol, prepared statements); this check turns that into a clear 400 and makes
 * sure nothing of a multi-statement text runs.
 */
export function checkStatement(sql: string, dialect: Dialect): void {
  const regions = scanSql(sql, dialect);
  let sawCode = false;
  let ended = false;
  for (const r of regions) {
    if (r.kind === 'comment') continue;
    const text = r.kind === 'code' ? sql.slice(r.start, r.end) : 'x';
    for (const ch of text) {
      if (/\s/.test(ch)) continue;
      if (ended) throw new StatementError('query: only one statement is accepted; remove the text after the ";"');
      if (ch === ';') {
        if (!sawCode)
          throw new StatementError('query: only one statement is accepted; remove the empty statement before the ";"');
        ended = true;
      } else sawCode = true;
    }
  }
  if (!sawCode) throw new StatementError('query: must contain an SQL statement');
  const first = codeWords(sql, dialect)[0];
  if (first !== undefined && TRANSACTION_CONTROL.has(first)) {
    throw new StatementError(`query: ${first} is not accepted; every query runs in a transaction of its own`);
  }
}

/**
 * Why a statement is not a read, for a read-only data source's friendly 400; undefined when it looks like one.
 * This is the message, not the guarantee: the statement also runs in a read-only transaction that is always rolled
 * back, which is what stops anything this text-level check lets through.
 */
export function readOnlyViolation(sql: string, dialect: Dialect): string | undefined {
  const words = codeWords(sql, dialect).filter((w) => w !== ';');
  const first = words[0];
  if (first === undefined) return undefined;
  if (!READ_STARTS.has(first)) return `${first} is not a read`;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (WRITES.has(w)) return `${w} is not a read`;
    if (w === 'INTO') return 'SELECT ... INTO writes a table or file';
    if (w === 'FOR' && ['SHARE', 'KEY', 'NO'].includes(words[i + 1] ?? ''))
      return `FOR ${words[i + 1]} takes row locks`;
    if (w === 'LOCK' && words[i + 1] === 'IN') return 'LOCK IN SHARE MODE takes row locks';
  }
  return undefined;
}
