import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ingestCommand } from '../../src/ingest/cli.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { waitFor } from '../support/wait.ts';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * `platform ingest erasures request|list|lift` (src/ingest/erasure/cli.ts): the same store functions as the admin
 * API, recorded with the requester `command`; a running instance's worker erases what the command asked for, and its
 * suppression holds there (within INGEST_KEY_CACHE_SECONDS, Redis not being set here).
 */
let h: IngestHarness;
let shop: { projectId: string; key: string };
const ENV = { INGEST_KEY_CACHE_SECONDS: '1', INGEST_COMMIT_TIMEOUT_SECONDS: '1' };

const run = async (...args: string[]) => {
  const config = loadIngestConfig({ DATABASE_URL: h.database.url, DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent' });
  const out: string[] = [];
  const err: string[] = [];
  const code = await ingestCommand(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};
const post = (events: unknown[]) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': shop.key, 'content-type': 'application/json' },
    payload: { events },
  });
const storedIds = async () =>
  (
    await h.sql.query<{ event_id: string }>('SELECT event_id FROM ingest.events WHERE project_id = $1', [
      shop.projectId,
    ])
  ).rows.map((r) => r.event_id);

before(async () => {
  h = await startIngest(ENV, 'ingesterasurecli');
  shop = await h.project('shop');
});
after(async () => h?.close());

test('erasures request, list and lift from the command line, through the API’s rules, recorded as the command', async () => {
  const at = new Date().toISOString();
  const event = (id: string, user: string) =>
    makeEvent(shop.projectId, { event_id: id, 'user.id': user, 'event.timestamp': at });
  assert.equal((await post([event('a-1', 'ann'), event('a-2', 'ann'), event('b-1', 'bob')])).statusCode, 202);

  const requested = await run('erasures', 'request', shop.projectId, 'ann', '--suppress', '--json');
  assert.equal(requested.code, 0, requested.err);
  const erasure = JSON.parse(requested.out);
  assert.match(erasure.id, /^ers_/);
  assert.equal(erasure.requested_by, 'command');
  assert.equal(erasure.suppressed, true);
  // The instance's worker erases it; its suppression reaches the instance's cache.
  const done = await waitFor(
    'the erasure completed',
    async () => {
      const e = (await h.admin('GET', `/api/v1/projects/${shop.projectId}/erasures/${erasure.id}`)).json();
      return e.status === 'completed' ? e : undefined;
    },
    30_000,
  );
  assert.equal(done.deleted, 2);
  assert.deepEqual(await storedIds(), ['b-1']);
  await waitFor('the suppression heard', async () => {
    await post([event(`a-${Date.now()}`, 'ann')]);
    return (await storedIds()).length === 1 || undefined;
  });

  const listed = await run('erasures', 'list', shop.projectId);
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, new RegExp(`^${erasure.id}  completed  deleted=2 .*  suppressed  requested by command`));
  const listedJson = JSON.parse((await run('erasures', 'list', shop.projectId, '--json')).out);
  assert.deepEqual(
    listedJson.items.map((e: { id: string }) => e.id),
    [erasure.id],
  );

  const lifted = await run('erasures', 'lift', shop.projectId, erasure.id);
  assert.equal(lifted.code, 0, lifted.err);
  assert.match(lifted.out, new RegExp(`lifted the suppression of erasure ${erasure.id}`));
  const who = await h.sql.query('SELECT suppression_lifted_by FROM ingest.erasures WHERE id = $1', [erasure.id]);
  assert.equal(who.rows[0].suppression_lifted_by, 'command');
  const again = await run('erasures', 'lift', shop.projectId, erasure.id);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /already lifted/);
  await waitFor('the lift heard', async () => {
    await post([event(`a-${Date.now()}`, 'ann')]);
    return (await storedIds()).length > 1 || undefined;
  });
});

test('the command refuses what the API refuses, with its exit codes', async () => {
  const unknown = await run('erasures', 'request', 'no-such-project', 'ann');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /no project no-such-project/);
  const tooLong = await run('erasures', 'request', shop.projectId, 'x'.repeat(1_025));
  assert.equal(tooLong.code, 2);
  assert.match(tooLong.err, /user_id: must be at most 1,024 characters/);
  const missing = await run('erasures', 'request', shop.projectId);
  assert.equal(missing.code, 2);
  assert.equal((await run('erasures', 'list', 'no-such-project')).code, 1);

  const plain = JSON.parse((await run('erasures', 'request', shop.projectId, 'dave', '--json')).out);
  assert.equal(plain.suppress, false);
  const nothing = await run('erasures', 'lift', shop.projectId, plain.id);
  assert.equal(nothing.code, 1);
  assert.match(nothing.err, /did not suppress its user: nothing to lift/);
  const noErasure = await run('erasures', 'lift', shop.projectId, 'ers_nope');
  assert.equal(noErasure.code, 1);
  assert.match(noErasure.err, /no erasure ers_nope in project/);
  const { rows } = await h.sql.query("SELECT count(*)::int AS n FROM ingest.erasures WHERE user_id LIKE 'xxxx%'");
  assert.equal(rows[0].n, 0, 'nothing refused was recorded');
});
