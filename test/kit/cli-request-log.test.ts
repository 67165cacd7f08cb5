import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loggerOptions, requestLogLevel, setLogFormat } from '../../src/kit/logger.ts';
import { prettyLine } from '../../src/kit/pretty-log.ts';

// Issue 23: `npm start` logged every request at info, /ready polls included, burying the start's URLs. A request's
// line is at debug now, except a 5xx or a slow answer; on a terminal the log is one readable line per entry.

const APP = new URL('../../src/kit/app.ts', import.meta.url).href;
const LOGGER = new URL('../../src/kit/logger.ts', import.meta.url).href;

/**
 * An app of the kit in a child process (pino writes to the process's stdout), answering /ok, /bad (400), /boom (500)
 * and /slow (1.2 s); every route is requested once, then the process exits. Answers its stdout.
 */
async function requestsLogged(env: Record<string, string>, format: 'json' | 'pretty'): Promise<string> {
  const script = `
    const { createApp } = await import(${JSON.stringify(APP)});
    const { setLogFormat } = await import(${JSON.stringify(LOGGER)});
    setLogFormat(${JSON.stringify(format)});
    const app = await createApp({ name: 'example', version: '1', logLevel: process.env.LOG_LEVEL });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/bad', async (_req, reply) => reply.code(400).send({ error: { code: 'BAD', message: 'bad' } }));
    app.get('/boom', async () => { throw new Error('boom'); });
    app.get('/slow', async () => { await new Promise((r) => setTimeout(r, 1200)); return { slow: true }; });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = 'http://127.0.0.1:' + app.server.address().port;
    for (const path of ['/ok', '/ok', '/bad', '/boom', '/slow', '/nope']) await fetch(base + path);
    await app.close();
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, err);
  return out;
}

function completed(out: string): { level: number; url: string; status: number }[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; req?: { url: string }; res?: { statusCode: number } })
    .filter((e) => e.msg === 'request completed')
    .map((e) => ({ level: e.level, url: e.req!.url, status: e.res!.statusCode }));
}

test('at info, only a 5xx and a slow request are logged; at debug, every request', { timeout: 60_000 }, async () => {
  const info = completed(await requestsLogged({ LOG_LEVEL: 'info' }, 'json'));
  assert.deepEqual(info, [
    { level: 30, url: '/boom', status: 500 },
    { level: 30, url: '/slow', status: 200 },
  ]);
  const debug = completed(await requestsLogged({ LOG_LEVEL: 'debug' }, 'json'));
  assert.deepEqual(
    debug.map((e) => `${e.level} ${e.url} ${e.status}`),
    ['20 /ok 200', '20 /ok 200', '20 /bad 400', '30 /boom 500', '30 /slow 200', '20 /nope 404'],
  );
});

test('the pretty format: one line per entry, a request as method, path, status and time', {
  timeout: 60_000,
}, async () => {
  const out = await requestsLogged({ LOG_LEVEL: 'info', NO_COLOR: '1' }, 'pretty');
  const lines = out.trim().split('\n');
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d INFO {2}example {3}Server listening at http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(
    lines.some((l) => /^\d\d:\d\d:\d\d ERROR example {3}request failed reqId=\S+ err=boom$/.test(l)),
    out,
  );
  assert.ok(
    lines.some((l) => /^ {4}Error: boom$/.test(l)),
    `the stack follows the error:\n${out}`,
  );
  assert.ok(
    lines.some((l) => /^\d\d:\d\d:\d\d INFO {2}example {3}GET \/slow 200 1\d{3} ms reqId=\S+$/.test(l)),
    out,
  );
  assert.ok(!lines.some((l) => l.startsWith('{')), 'no JSON');
});

test('requestLogLevel and prettyLine, piece by piece', () => {
  assert.equal(requestLogLevel(200, 5), 'debug');
  assert.equal(requestLogLevel(404, 5), 'debug');
  assert.equal(requestLogLevel(503, 5), 'info');
  assert.equal(requestLogLevel(200, 1001), 'info');
  const time = new Date(2026, 10, 26, 9, 5, 7).getTime();
  assert.equal(
    prettyLine(
      JSON.stringify({ level: 40, time, service: 'audit', msg: 'slow page', url: 'https://a.example/ x', n: 2 }),
      false,
    ),
    '09:05:07 WARN  audit     slow page url="https://a.example/ x" n=2',
  );
  assert.equal(prettyLine('not json', false), 'not json');
  assert.equal(
    prettyLine(JSON.stringify({ level: 30, time, service: 'ingest', msg: 'x' }), true),
    '09:05:07 \x1b[32mINFO \x1b[0m ingest    x',
  );
});

test('LOG_FORMAT=auto is pretty on a terminal and JSON elsewhere', () => {
  try {
    setLogFormat('auto', { isTTY: true });
    assert.ok('stream' in (loggerOptions('x', 'info') as object), 'a terminal: the pretty stream');
    setLogFormat('auto', { isTTY: false });
    assert.ok(!('stream' in (loggerOptions('x', 'info') as object)), 'a pipe or a file: JSON on stdout');
    setLogFormat('json', { isTTY: true });
    assert.ok(!('stream' in (loggerOptions('x', 'info') as object)), 'json, even on a terminal');
  } finally {
    setLogFormat('json');
  }
});
