import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import pino from 'pino';
import { postgresBus, type LiveBus } from '../../src/ingest/live/bus.ts';
import { startPgProxy, type PgProxy } from '../support/pg-proxy.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { waitFor } from '../support/wait.ts';

let database: FreshDatabase;
let proxy: PgProxy;
const quiet = pino({ level: 'silent' });
const retryMs = { lost: 10, failed: 50 };

before(async () => {
  database = await freshPostgres('livebusoutage');
  proxy = await startPgProxy();
});

after(async () => {
  await proxy.close();
  await database.drop();
});

test('while the database refuses, the listening connection tries once at a time, and listens again after', async () => {
  const delivered: string[] = [];
  const notifier = new pg.Client({ connectionString: database.url });
  await notifier.connect();
  let bus: LiveBus | undefined;
  try {
    bus = await postgresBus({
      url: proxy.url(database.url),
      channel: 'outage_live',
      notify: (channel, payload) => notifier.query('SELECT pg_notify($1, $2)', [channel, payload]),
      deliver: (m) => delivered.push(m),
      log: quiet,
      retryMs,
    });
    proxy.down();
    // A failed try used to start two more (its rejection and its client's 'end' each scheduled one): the tries
    // doubled until the process ran out of memory.
    await waitFor('eight tries during the outage', () => proxy.tries >= 8, 30_000);
    assert.equal(proxy.mostAtOnce, 1, `${proxy.mostAtOnce} tries at once`);

    proxy.up();
    await waitFor('a notification after the outage', async () => {
      await bus!.publish(['back']);
      return delivered.includes('back');
    });
  } finally {
    await bus?.close();
    await notifier.end();
  }
  const triesAtClose = proxy.tries;
  proxy.down();
  await new Promise((r) => setTimeout(r, 20 * retryMs.failed));
  assert.equal(proxy.tries, triesAtClose, 'a closed bus tried again');
  proxy.up();
});

test('a bus that cannot listen at start fails once and leaves no try behind', async () => {
  proxy.down();
  const before = proxy.tries;
  try {
    await assert.rejects(
      postgresBus({
        url: proxy.url(database.url),
        channel: 'outage_live',
        notify: async () => {},
        deliver: () => {},
        log: quiet,
        retryMs,
      }),
    );
    assert.equal(proxy.tries, before + 1);
    // Longer than the default delay after a lost connection (1 s), after which the old code's leftover try came.
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(proxy.tries, before + 1, 'the failed start kept trying');
  } finally {
    proxy.up();
  }
});
