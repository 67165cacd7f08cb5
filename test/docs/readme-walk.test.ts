import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { freePort } from '../support/free-port.ts';

// The README's "Try it" block, run as written against the whole platform started by `npm start`, on
// free ports (the block's localhost:4000, :4001 and :4003 are rewritten) and a fresh PostgreSQL database.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function tryItBlock(): string {
  const readme = readFileSync(new URL('README.md', `file://${ROOT}`), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'README.md has a ```sh block under "## Try it"');
  return m[1]!;
}

test("the README's walk works when pasted into a shell", { timeout: 300_000 }, async () => {
  const script = tryItBlock();
  // The ports are free when chosen but can be taken before the platform listens (test files run in parallel):
  // the walk then stops at its readiness loop with "the port is in use", and runs again on other ports.
  const walk = async (): Promise<{ code: number | null; out: string; err: string }> => {
    const [identity, dashboard, audit, ingest] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const database = await freshPostgres('readme');
    const data = tempDir('readme-walk-');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: data.path,
      IDENTITY_PORT: String(identity),
      DASHBOARD_PORT: String(dashboard),
      AUDIT_PORT: String(audit),
      INGEST_PORT: String(ingest),
      IDENTITY_ISSUER: `http://localhost:${identity}`,
      LOG_LEVEL: 'warn',
    };
    const runnable = script
      .replaceAll('localhost:4000', `localhost:${identity}`)
      .replaceAll('localhost:4001', `localhost:${dashboard}`)
      .replaceAll('localhost:4003', `localhost:${ingest}`);
    // Its own process group, so the platform it starts in the background is stopped with it whatever happens.
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', runnable], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    try {
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { code, out, err };
    } finally {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // The group is already gone.
      }
      await database.drop();
      data.remove();
    }
  };
  let run = await walk();
  for (let attempt = 2; attempt <= 3 && run.code !== 0 && /the port is in use/.test(run.err); attempt++)
    run = await walk();
  const { code, out, err } = run;
  assert.equal(code, 0, `the walk failed:\n--- stdout\n${out}\n--- stderr\n${err}`);
  assert.match(out, /"active":true/, 'the introspection of the token');
  assert.match(out, /"scope":"reports:read"/);
  assert.match(out, /\{"accepted":1,"rejected":0,"errors":\[\]\}/, 'the batch of events');
  assert.match(
    out,
    /\{"items":\[\{"id":"prj_[^"]+","name":"Web shop","created_at":"\d{4}-\d\d-\d\dT[^"]+Z"\}\],"next":null\}/,
    'the admin API',
  );
  assert.match(out, /"slug":"sales","title":"Sales"/, 'the dashboard created with the token of the dashboard CLI');
  assert.match(out, /"data":\[\{[^\]]*"slug":"sales"/, 'the dashboard found by search');
  assert.doesNotMatch(
    out,
    /cs_[A-Za-z0-9_-]{20,}|isk_[A-Za-z0-9_-]{20,}/,
    'secrets went into variables, not onto the screen',
  );
});
