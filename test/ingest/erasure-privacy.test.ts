import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { ingestCommand } from '../../src/ingest/cli.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { waitFor } from '../support/wait.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * An erasure's record keeps what proves it happened, not whom it erased (migration 014): once completed with no
 * suppression holding, the user's id is gone from the `erasures` table, answered as null, and found only by its keyed
 * digest (the list's `user_id` filter); a suppression keeps the id while it holds, and drops it when lifted.
 */
let h: IngestHarness;
let shop: { projectId: string; key: string };
const SECRET = 'ab'.repeat(32);
const ENV = { INGEST_KEY_CACHE_SECONDS: '1', INGEST_COMMIT_TIMEOUT_SECONDS: '1', PLATFORM_SECRET_KEY: SECRET };

before(async () => {
  h = await startIngest(ENV, 'ingesterasureprivacy');
  shop = await h.project('shop');
});
after(async () => h?.close());

const erase = async (userId: string, suppress = false) => {
  const res = await h.admin('POST', `/api/v1/projects/${shop.projectId}/erasures`, { user_id: userId, suppress });
  assert.equal(res.statusCode, 202, res.body);
  return res.json() as { id: string; user_id: string | null };
};
const completed = (id: string) =>
  waitFor(
    `erasure ${id} completed`,
    async () => {
      const e = (await h.admin('GET', `/api/v1/projects/${shop.projectId}/erasures/${id}`)).json();
      return e.status === 'completed' ? e : undefined;
    },
    30_000,
  );
/** Every erasure row holding `text` anywhere, read from the table itself. */
const rowsHolding = async (text: string) =>
  (await h.sql.query('SELECT id FROM ingest.erasures e WHERE strpos(e::text, $1) > 0', [text])).rows.length;
const listed = async (query = '') => {
  const res = await h.admin('GET', `/api/v1/projects/${shop.projectId}/erasures${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items as { id: string; user_id: string | null }[];
};

test('a completed erasure without suppression keeps no clear id; a lookup by the id finds it by its digest', async () => {
  const at = new Date().toISOString();
  const event = makeEvent(shop.projectId, { event_id: 'a-1', 'user.id': 'ann@example.com', 'event.timestamp': at });
  const sent = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': shop.key, 'content-type': 'application/json' },
    payload: { events: [event] },
  });
  assert.equal(sent.statusCode, 202);
  const asked = await erase('ann@example.com');
  assert.equal(asked.user_id, 'ann@example.com', 'kept while the worker needs it');
  assert.equal(await rowsHolding('ann@example.com'), 1);

  const done = await completed(asked.id);
  assert.equal(done.deleted, 1);
  assert.equal(done.user_id, null);
  assert.equal(await rowsHolding('ann@example.com'), 0, 'the clear id is gone from the table');
  const row = (await h.sql.query('SELECT user_id, user_digest FROM ingest.erasures WHERE id = $1', [asked.id])).rows[0];
  assert.equal(row.user_id, null);
  assert.match(row.user_digest, /^[\w-]{43}$/);
  assert.deepEqual(
    (await listed()).map((e) => [e.id, e.user_id]),
    [[asked.id, null]],
  );
  // "Was ann erased?": by the id, compared by digest; another id, or the same in capitals, is another user.
  assert.deepEqual(
    (await listed(`?user_id=${encodeURIComponent('ann@example.com')}`)).map((e) => e.id),
    [asked.id],
  );
  assert.deepEqual(await listed('?user_id=Ann%40example.com'), []);
  assert.deepEqual(await listed('?user_id=bob'), []);
  // The CLI's lookup, with the same key.
  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    DATA_DIR: '/tmp/unused',
    LOG_LEVEL: 'silent',
    ...ENV,
  });
  const out: string[] = [];
  const code = await ingestCommand(['erasures', 'list', shop.projectId, '--user', 'ann@example.com'], config, {
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  assert.equal(code, 0, out.join('\n'));
  assert.match(out.join('\n'), new RegExp(`^${asked.id}  completed .* user \\(not kept\\)`));
});

test('a suppression keeps the id while it holds, and drops it once lifted', async () => {
  const asked = await erase('carol', true);
  const done = await completed(asked.id);
  assert.equal(done.user_id, 'carol', 'arriving events are matched by it');
  assert.equal(await rowsHolding('carol'), 1);
  // A second erasure of carol, without suppression, completes without it: the suppression is the first's.
  const plain = await erase('carol');
  assert.equal((await completed(plain.id)).user_id, null);

  const lifted = await h.admin('DELETE', `/api/v1/projects/${shop.projectId}/erasures/${asked.id}/suppression`);
  assert.equal(lifted.statusCode, 200, lifted.body);
  assert.equal(lifted.json().user_id, null);
  assert.equal(await rowsHolding('carol'), 0);
  assert.deepEqual(
    (await listed('?user_id=carol')).map((e) => e.id),
    [plain.id, asked.id],
  );
});

test('erasures recorded before migration 014 get their digest at the next start, and lose the ids they no longer need', async () => {
  await h.sql.query(
    `INSERT INTO ingest.erasures (id, project_id, user_id, suppress, status, requested_by, finished_at)
     VALUES ('ers_old_done', $1, 'dora', false, 'completed', 'admin-token', now()),
            ('ers_old_held', $1, 'erin', true, 'completed', 'admin-token', now())`,
    [shop.projectId],
  );
  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    DATA_DIR: '/tmp/unused',
    LOG_LEVEL: 'silent',
    INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
    ...ENV,
  });
  const app = await buildIngestApp(config);
  try {
    const rows = (
      await h.sql.query(
        `SELECT id, user_id, user_digest IS NOT NULL AS digested FROM ingest.erasures WHERE id LIKE 'ers_old_%' ORDER BY id`,
      )
    ).rows;
    assert.deepEqual(rows, [
      { id: 'ers_old_done', user_id: null, digested: true },
      { id: 'ers_old_held', user_id: 'erin', digested: true },
    ]);
    const found = await app.inject({
      method: 'GET',
      url: `/api/v1/projects/${shop.projectId}/erasures?user_id=dora`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.deepEqual(
      found.json().items.map((e: { id: string }) => e.id),
      ['ers_old_done'],
    );
  } finally {
    await app.close();
  }
});
