import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/tmp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const tmp = tempDir();
after(() => tmp.remove());

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: join(tmp.path, 'data'), ...extra };
  delete e.DATABASE_URL;
  delete e.INGEST_DATABASE_URL;
  delete e.IDENTITY_DATABASE_URL;
  return e;
}

function run(args: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: env(extra),
    encoding: 'utf8',
    cwd: tmp.path,
    timeout: 180_000,
  });
}

test('help lists the commands and every registered service with its port', () => {
  const r = run(['help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /start \[service \.\.\.\]/);
  assert.match(r.stdout, /migrate \[service \.\.\.\]/);
  assert.match(r.stdout, /identity\s+port 4000/);
  assert.match(r.stdout, /ingest\s+port 4003/);
});

test('an unknown command or service is a usage error', () => {
  const a = run(['frobnicate']);
  assert.equal(a.status, 2);
  assert.match(a.stderr, /unknown command "frobnicate"/);
  const b = run(['start', 'nosuch']);
  assert.equal(b.status, 2);
  assert.match(b.stderr, /unknown service "nosuch"; known: identity, dashboard, audit, ingest/);
});

test('a malformed variable stops the start with one line naming it', () => {
  const r = run(['start', 'ingest'], { INGEST_PORT: 'abc' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /^platform: INGEST_PORT is malformed: expected an integer from 0 to 65535 \(got "abc"\)$/m);
  const bad = run(['migrate', 'ingest'], { LOG_LEVEL: 'loud' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /LOG_LEVEL is malformed: expected one of fatal, error, warn, info, debug, trace, silent/);
});

test('.env values are read and the environment wins over them', async () => {
  const dir = tempDir();
  try {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir.path, '.env'), 'INGEST_PORT=notaport\n');
    const r = spawnSync(process.execPath, [CLI, 'start', 'ingest'], {
      env: env({}),
      encoding: 'utf8',
      cwd: dir.path,
      timeout: 180_000,
    });
    assert.match(r.stderr, /INGEST_PORT is malformed/);
    const ok = spawnSync(process.execPath, [CLI, 'migrate', 'ingest'], {
      env: env({ INGEST_PORT: '4999', DATA_DIR: join(dir.path, 'd') }),
      encoding: 'utf8',
      cwd: dir.path,
      timeout: 180_000,
    });
    assert.equal(ok.status, 0, ok.stderr);
  } finally {
    dir.remove();
  }
});

test('start serves on embedded storage, a second process on the same folder is refused, SIGINT stops cleanly', async () => {
  const child = spawn(process.execPath, [CLI, 'start', 'ingest'], {
    env: env({ INGEST_PORT: '0' }),
    cwd: tmp.path,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout} ${stderr}`)), 180_000);
    child.stdout.on('data', () => {
      const m = /ingest\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });

  const second = run(['migrate', 'ingest']);
  assert.equal(second.status, 1);
  assert.match(
    second.stderr,
    /^platform: the data folder \S+\/data\/ingest is in use by process \d+ \(`platform start`, ingest\); the running platform applied ingest's migrations when it started; migrate runs while the platform is stopped$/m,
  );
  assert.equal((await fetch(`${url}/ready`)).status, 200, 'the running server is unharmed');

  child.kill('SIGINT');
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /SIGINT: stopping/);
  assert.equal(existsSync(join(tmp.path, 'data', 'ingest', 'platform.lock')), false, 'the lock is released');
  const again = run(['migrate', 'ingest']);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /ingest: up to date/);
});
