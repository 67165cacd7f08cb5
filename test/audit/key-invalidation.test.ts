import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { App } from '../../src/kit/app.ts';
import { buildAuditApp } from '../../src/audit/app.ts';
import { auditCommand } from '../../src/audit/cli.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { connectRedis } from '../../src/kit/redis.ts';
import { refusedEverywhere } from '../support/refused-everywhere.ts';
import { startAudit, type AuditHarness } from './support.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// A key cache far longer than the test: only the invalidation can explain a revoked key refused at once.
const env = { REDIS_URL, AUDIT_KEY_CACHE_SECONDS: '300', AUDIT_CONCURRENCY: '0' };
let a: AuditHarness;
let b: App;
let listener: Redis;

before(async () => {
  a = await startAudit(env, 'auditkeyinval');
  b = await buildAuditApp(loadAuditConfig(a.env));
  listener = await connectRedis(REDIS_URL);
  await listener.subscribe('platform:invalidate:audit');
});
after(async () => {
  listener?.disconnect();
  await b?.close();
  await a?.close();
});

const list = (app: App, key: string) =>
  app.inject({ method: 'GET', url: '/api/v1/audits', headers: { authorization: `Bearer ${key}` } });

async function cli(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await auditCommand(args, loadAuditConfig(a.env), { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

async function newKey(): Promise<{ id: string; key: string }> {
  const created = await cli('keys', 'create', '--json');
  assert.equal(created.code, 0, created.err.join('\n'));
  return JSON.parse(created.out.join('\n')) as { id: string; key: string };
}

test('two instances on one database and Redis: a key revoked by `platform audit keys revoke` is refused by both at once', async () => {
  const revokedHere = await newKey();
  const behindItsBack = await newKey();
  for (const app of [a.app, b])
    for (const { key } of [revokedHere, behindItsBack])
      assert.equal((await list(app, key)).statusCode, 200, 'each instance has looked the key up and cached it');

  // Revoked in the database without telling anyone: the instances keep serving their cached lookup, so the cache is
  // in force and only the invalidation below can explain a refusal.
  await a.sql.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [behindItsBack.id]);
  assert.equal((await list(b, behindItsBack.key)).statusCode, 200, 'a revocation nobody announced waits for expiry');

  const published = once(listener, 'message');
  const revoked = await cli('keys', 'revoke', revokedHere.id);
  assert.equal(revoked.code, 0, revoked.err.join('\n'));
  assert.deepEqual(revoked.out, [`revoked key ${revokedHere.id}`], 'announced to every instance: no wait to mention');
  assert.deepEqual(revoked.err, []);

  await published;
  await refusedEverywhere([a.app, b], async (app) => (await list(app, revokedHere.key)).statusCode, {
    accepted: 200,
    refused: 401,
  });
  assert.equal((await list(b, a.key)).statusCode, 200, 'keys that were not revoked keep working');
});

test('a revocation Redis cannot carry still revokes, and says the instances stop accepting the key when their copy expires', async () => {
  const { id } = await newKey();
  const out: string[] = [];
  const err: string[] = [];
  // Nothing listens on port 1: the announcement fails, the revocation in the database stands.
  const config = loadAuditConfig({ ...a.env, REDIS_URL: 'redis://127.0.0.1:1' });
  const code = await auditCommand(['keys', 'revoke', id], config, { out: (l) => out.push(l), err: (l) => err.push(l) });
  assert.equal(code, 0);
  assert.deepEqual(out, [`revoked key ${id} (running services stop accepting it within AUDIT_KEY_CACHE_SECONDS)`]);
  assert.match(
    err.join('\n'),
    /^platform audit keys revoke: the key is revoked, but running instances could not be told at once: Redis at redis:\/\/127\.0\.0\.1:1 did not answer/,
  );
  const { rows } = await a.sql.query('SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [id]);
  assert.deepEqual(rows, [{ revoked: true }]);
});
