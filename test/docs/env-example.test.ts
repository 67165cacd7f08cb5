import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual, parseEnv } from 'node:util';
import type { Variable } from '../../src/kit/config.ts';
import { int, str } from '../../src/kit/config.ts';
import { processSpec } from '../../src/kit/process-variables.ts';
import { renderEnvExample } from '../../src/platform/env-example.ts';
import { services } from '../../src/services.ts';

// `.env.example` lists every declared variable once, with its default: a value that reads back (through the .env
// parser and the variable's own parser) as the default the declaration gives, or empty for one that is unset.
const EXAMPLE = new URL('../../.env.example', import.meta.url);
/** Each declared variable once (every service declares HOST, LOG_LEVEL, ...). */
const declared = (): Variable<unknown>[] => [
  ...new Map(
    [...services.flatMap((s) => Object.values(s.spec)), ...Object.values(processSpec)].map((v) => [v.name, v]),
  ).values(),
];

/** What is wrong with an example file for these declarations, one line each. */
function problems(text: string, variables: Variable<unknown>[]): string[] {
  const found: string[] = [];
  const lines = text.split('\n').filter((l) => /^# [A-Z][A-Z0-9_]*=/.test(l));
  const values = new Map<string, string>();
  for (const line of lines) {
    const [[name, value]] = Object.entries(parseEnv(line.slice(2))) as [[string, string]];
    if (values.has(name)) found.push(`${name} is listed twice`);
    values.set(name, value);
  }
  const names = new Set(variables.map((v) => v.name));
  for (const v of variables) {
    const value = values.get(v.name);
    if (value === undefined) {
      found.push(`${v.name} is declared but not in .env.example`);
      continue;
    }
    const fallback = v.fallback?.();
    const unset = fallback === undefined || (Buffer.isBuffer(fallback) && fallback.length === 0);
    if (value === '' ? !unset && !isDeepStrictEqual(fallback, []) : !isDeepStrictEqual(v.parse(value), fallback))
      found.push(`${v.name}: .env.example says ${JSON.stringify(value)}, the default is ${JSON.stringify(fallback)}`);
  }
  for (const name of values.keys()) if (!names.has(name)) found.push(`${name} is in .env.example but not declared`);
  return found;
}

test('.env.example lists every declared variable with its default (node scripts/env-example.ts writes it)', () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  assert.deepEqual(problems(text, declared()), []);
  assert.equal(text, renderEnvExample(), 'out of date: run node scripts/env-example.ts');
});

test('the check catches a variable declared but not listed, a default that changed, and one no longer declared', () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  const added = str('EXAMPLE_NEW_SETTING', { default: 'x', doc: 'A new setting.' });
  assert.deepEqual(problems(text, [...declared(), added]), ['EXAMPLE_NEW_SETTING is declared but not in .env.example']);

  const changed = declared().map((v) =>
    v.name === 'INGEST_PORT' ? int('INGEST_PORT', { default: 4999, min: 0, max: 65535, doc: v.doc }) : v,
  );
  assert.deepEqual(problems(text, changed), ['INGEST_PORT: .env.example says "4003", the default is 4999']);

  const removed = declared().filter((v) => v.name !== 'AUDIT_MAX_PAGES');
  assert.deepEqual(problems(text, removed), ['AUDIT_MAX_PAGES is in .env.example but not declared']);
});
