import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  ConfigError,
  bool,
  int,
  key256,
  list,
  oneOf,
  optionalStr,
  optionalUrl,
  readConfig,
  str,
  url,
} from '../../src/kit/config.ts';
import { commonVariables } from '../../src/kit/service-config.ts';
import { processSpec } from '../../src/kit/process-variables.ts';
import { services } from '../../src/services.ts';

const spec = {
  port: int('X_PORT', { default: 4000, min: 1, max: 65535, doc: '' }),
  name: str('X_NAME', { doc: '' }),
  debug: bool('X_DEBUG', { default: false, doc: '' }),
  mode: oneOf('X_MODE', ['a', 'b'], { default: 'a', doc: '' }),
  link: url('X_URL', ['http:', 'https:'], { default: 'http://localhost', doc: '' }),
  maybe: optionalUrl('X_MAYBE', ['postgres:'], { doc: '' }),
  tags: list('X_TAGS', { default: [], doc: '' }),
  note: optionalStr('X_NOTE', { doc: '' }),
  key: key256('X_KEY', { default: () => Buffer.alloc(0), doc: '' }),
};

test('defaults apply and values are parsed to their types', () => {
  const c = readConfig(spec, { X_NAME: 'n', X_DEBUG: 'yes', X_TAGS: 'a, b,,c', X_KEY: 'ab'.repeat(32) });
  assert.equal(c.port, 4000);
  assert.equal(c.name, 'n');
  assert.equal(c.debug, true);
  assert.equal(c.mode, 'a');
  assert.equal(c.maybe, undefined);
  assert.equal(c.note, undefined);
  assert.deepEqual(c.tags, ['a', 'b', 'c']);
  assert.equal(c.key.length, 32);
});

test('a missing required variable is named with what it expects', () => {
  assert.throws(
    () => readConfig(spec, {}),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.variable === 'X_NAME' &&
      /X_NAME is required: expected a non-empty string/.test(e.message),
  );
});

test('malformed values are refused with the variable and the expectation', () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ X_PORT: 'abc' }, 'X_PORT', /X_PORT is malformed: expected an integer from 1 to 65535 \(got "abc"\)/],
    [{ X_PORT: '70000' }, 'X_PORT', /from 1 to 65535/],
    [{ X_PORT: '4.5' }, 'X_PORT', /an integer/],
    [{ X_DEBUG: 'maybe' }, 'X_DEBUG', /true or false/],
    [{ X_MODE: 'c' }, 'X_MODE', /one of a, b/],
    [{ X_URL: 'not a url' }, 'X_URL', /a URL \(http or https\)/],
    [{ X_MAYBE: 'mysql://x' }, 'X_MAYBE', /a URL \(postgres\)/],
    [{ X_KEY: 'short' }, 'X_KEY', /256-bit key/],
  ];
  for (const [env, name, message] of cases) {
    assert.throws(
      () => readConfig(spec, { X_NAME: 'n', ...env }),
      (e: unknown) => e instanceof ConfigError && e.variable === name && message.test(e.message),
      name,
    );
  }
});

test('a malformed secret is not echoed back', () => {
  assert.throws(
    () => readConfig(spec, { X_NAME: 'n', X_KEY: 'hunter2-not-a-key' }),
    (e: unknown) => e instanceof ConfigError && !e.message.includes('hunter2'),
  );
});

test('a base64 key is accepted', () => {
  const c = readConfig(spec, { X_NAME: 'n', X_KEY: Buffer.alloc(32, 7).toString('base64') });
  assert.deepEqual(c.key, Buffer.alloc(32, 7));
});

test('every variable a service or the toolkit reads is documented in docs/configuration.md', () => {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const names = new Set<string>(
    Object.values(commonVariables('example', 1)).map((v) => v.name.replace('EXAMPLE_', '<SERVICE>_')),
  );
  for (const s of services) for (const n of s.variables) names.add(n);
  for (const v of Object.values(processSpec)) names.add(v.name);
  for (const name of names) assert.ok(doc.includes(`\`${name}\``), `${name} is not documented`);
});
