import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { failedStart as startFailing } from '../support/failed-start.ts';

const tmp = tempDir();
let database: FreshDatabase;

before(async () => {
  database = await freshPostgres('clistart');
});
after(async () => {
  await database.drop();
  tmp.remove();
});

/** `platform start <service>` that is expected to fail, on this test's data directory and database. */
const failedStart = (service: string, extra: Record<string, string>) =>
  startFailing(service, { DATA_DIR: tmp.path, DATABASE_URL: database.url, ...extra });

function oneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${stderr}`);
  assert.match(lines[0]!, pattern);
}

test('a port in use is one line naming the port and the variable', async () => {
  const holder: Server = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const port = (holder.address() as { port: number }).port;
  try {
    const r = await failedStart('ingest', { INGEST_PORT: String(port) });
    assert.equal(r.status, 1);
    oneLine(
      r.stderr,
      new RegExp(
        `^platform: ingest cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use; stop what holds it or set INGEST_PORT to another port$`,
      ),
    );
  } finally {
    holder.close();
  }
});

test("a HOST that is not this machine's, or does not resolve, is one line naming it", async () => {
  const foreign = await failedStart('ingest', { HOST: '203.0.113.7' });
  assert.equal(foreign.status, 1);
  oneLine(
    foreign.stderr,
    /^platform: ingest cannot listen on 203\.0\.113\.7:0: HOST 203\.0\.113\.7 is not an address of this machine/,
  );
  const unknown = await failedStart('identity', { HOST: 'no-such-host.invalid' });
  assert.equal(unknown.status, 1);
  oneLine(
    unknown.stderr,
    /^platform: identity cannot listen on no-such-host\.invalid:0: HOST no-such-host\.invalid does not resolve to an address$/,
  );
});

test('Redis or the database unreachable at start is one line naming it', async () => {
  const redis = await failedStart('identity', { REDIS_URL: 'redis://:sekrit@127.0.0.1:1' });
  assert.equal(redis.status, 1);
  oneLine(
    redis.stderr,
    /^platform: identity: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 did not answer within \d+ ms.*\(REDIS_URL\)$/,
  );
  assert.ok(!redis.stderr.includes('sekrit'), 'the password stays out');
  const db = await failedStart('ingest', { DATABASE_URL: 'postgres://postgres:sekrit@127.0.0.1:1/nothing' });
  assert.equal(db.status, 1);
  oneLine(
    db.stderr,
    /^platform: ingest: cannot use the database: connect ECONNREFUSED 127\.0\.0\.1:1 \(check DATABASE_URL/,
  );
  assert.ok(!db.stderr.includes('sekrit'));
  const missing = await failedStart('ingest', { DATABASE_URL: `${database.url}_gone` });
  assert.equal(missing.status, 1);
  oneLine(missing.stderr, /^platform: ingest: cannot use the database: database "\S+_gone" does not exist/);
});
