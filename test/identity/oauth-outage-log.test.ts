import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startPgProxy } from '../support/pg-proxy.ts';
import { freshPostgres } from '../support/postgres.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { tempDir } from '../support/tmp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const SECRET_KEY = 'f'.repeat(64);

/**
 * A database outage met only by OAuth requests (the token and introspection endpoints, answered by the provider or
 * its fast routes): the provider answered each with 503 and never told the outage log, so nothing said the database
 * was gone. The loops poll once an hour here, so only the requests can say it.
 */
test('OAuth requests answered 503 in an outage: one error line, and one line when it ends', {
  timeout: 120_000,
}, async () => {
  const database = await freshPostgres('oauthoutage');
  const proxy = await startPgProxy();
  const dataDir = tempDir();
  try {
    const env = { DATA_DIR: dataDir.path, PLATFORM_SECRET_KEY: SECRET_KEY };
    const service = await startServiceProcess('identity', {
      ...env,
      IDENTITY_DATABASE_URL: proxy.url(database.url),
      IDENTITY_WEBHOOK_POLL_MS: '3600000',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    try {
      // A machine app, made by the command line on the database itself.
      const made = await promisify(execFile)(
        process.execPath,
        [CLI, 'identity', 'apps', 'create', '--name', 'Reports', '--type', 'machine', '--json'],
        { env: { PATH: process.env.PATH, ...env, IDENTITY_DATABASE_URL: database.url } },
      );
      const app = JSON.parse(made.stdout) as { client_id: string; client_secret: string };
      const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
      const post = (path: string, form: Record<string, string>) =>
        fetch(`${service.url}${path}`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form),
          signal: AbortSignal.timeout(20_000),
        });
      const token = () => post('/oauth/token', { grant_type: 'client_credentials' });
      const first = await token();
      assert.equal(first.status, 200, await first.clone().text());
      const { access_token } = (await first.json()) as { access_token: string };

      const lines = () => logLines(service.stdout());
      const before = lines().length;
      proxy.down();
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) answers.push((await token()).status);
      for (let i = 0; i < 3; i++) answers.push((await post('/oauth/introspect', { token: access_token })).status);
      assert.deepEqual(answers, Array(8).fill(503));
      const during = lines().slice(before);
      proxy.up();
      let ok = 0;
      for (let i = 0; i < 50 && ok !== 200; i++) {
        ok = (await token()).status;
        if (ok !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(ok, 200, 'a token once the database is back');
      // The log is written a moment after the answer.
      for (let i = 0; i < 50 && !lines().some((l) => l.msg === 'database available again'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const after = lines().slice(before + during.length);

      const errors = during.filter((l) => l.level >= 50);
      assert.equal(errors.length, 1, JSON.stringify(errors.map((l) => l.msg)));
      assert.match(errors[0]!.msg, /^database unavailable/);
      const back = [...during, ...after].filter((l) => l.msg === 'database available again');
      assert.equal(back.length, 1, 'one line said the database was back');
      assert.ok(back[0]!.failures >= 8, JSON.stringify(back[0]));
      assert.deepEqual(
        [...during, ...after].filter((l) => l.level >= 40 && l !== errors[0] && l !== back[0]),
        [],
        'nothing else at warning level or above',
      );
    } finally {
      await service.stop();
    }
  } finally {
    await proxy.close();
    await database.drop();
    dataDir.remove();
  }
});

/** The complete JSON lines of a log so far (a line still being written is left for the next look). */
function logLines(text: string): Record<string, any>[] {
  return text
    .slice(0, text.lastIndexOf('\n'))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}
