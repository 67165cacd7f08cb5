import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { postgresBus, type LiveBus } from '../../src/ingest/live/bus.ts';
import { freshPostgres, TEST_POSTGRES_URL, type FreshDatabase } from '../support/postgres.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The live bus's listening connection through a proxy to the test PostgreSQL that can be taken down: while down it
 * accepts each connection, holds it a moment and closes it (a server that refuses), counting the tries and how many
 * are open at once.
 */
interface Proxy {
  url(database: string): string;
  down(): void;
  up(): void;
  tries: number;
  mostAtOnce: number;
  close(): Promise<void>;
}

async function startProxy(): Promise<Proxy> {
  const target = new URL(TEST_POSTGRES_URL);
  const piped = new Set<net.Socket>();
  let isDown = false;
  let open = 0;
  const proxy: Proxy = {
    url(database) {
      const u = new URL(TEST_POSTGRES_URL);
      u.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      u.pathname = `/${database}`;
      return u.toString();
    },
    down() {
      isDown = true;
      for (const s of piped) s.destroy();
    },
    up() {
      isDown = false;
    },
    tries: 0,
    mostAtOnce: 0,
    async close() {
      for (const s of piped) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    if (isDown) {
      proxy.tries++;
      open++;
      proxy.mostAtOnce = Math.max(proxy.mostAtOnce, open);
      // Held open long enough that two tries started close together are seen at once.
      setTimeout(() => {
        open--;
        socket.destroy();
      }, 30);
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => socket.destroy());
    piped.add(socket);
    socket.on('close', () => {
      piped.delete(socket);
      upstream.destroy();
    });
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return proxy;
}

let database: FreshDatabase;
let proxy: Proxy;
const quiet = pino({ level: 'silent' });
const retryMs = { lost: 10, failed: 50 };

before(async () => {
  database = await freshPostgres('livebusoutage');
  proxy = await startProxy();
});

after(async () => {
  await proxy.close();
  await database.drop();
});

test('while the database refuses, the listening connection tries once at a time, and listens again after', async () => {
  const name = new URL(database.url).pathname.slice(1);
  const delivered: string[] = [];
  const notifier = new pg.Client({ connectionString: database.url });
  await notifier.connect();
  let bus: LiveBus | undefined;
  try {
    bus = await postgresBus({
      url: proxy.url(name),
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
  const name = new URL(database.url).pathname.slice(1);
  proxy.down();
  const before = proxy.tries;
  try {
    await assert.rejects(
      postgresBus({
        url: proxy.url(name),
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
