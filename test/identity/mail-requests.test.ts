import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { MAX_ATTEMPTS, startCourier, type MailJob } from '../../src/identity/courier/courier.ts';
import {
  claimMailRequest,
  dropExpiredMailRequests,
  MAX_WAITING,
  removeMailRequest,
  retryMailRequest,
  storeMailRequest,
  type MailRequest,
} from '../../src/identity/courier/requests.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The durable queue of "forgot password" and sign-in code mails (src/identity/courier/, migration 025) on both of the
 * service's databases: PostgreSQL and the embedded PGlite that `platform start` uses by default.
 */

const LIFETIMES = { password_reset: 1800, sign_in_code: 600 };
const reset = (email: string) => ({ kind: 'password_reset' as const, email, lang: 'en' });

let postgres: FreshDatabase;
const embedded = tempDir('identity-mail-requests-');
const backends: Record<'postgres' | 'pglite', Database> = {} as never;

before(async () => {
  postgres = await freshPostgres('idmailrequests');
  backends.postgres = await openDatabase({ url: postgres.url, dataDir: '/nonexistent', schema: 'identity' });
  backends.pglite = await openDatabase({ dataDir: embedded.path, schema: 'identity', migrations: MIGRATIONS });
  for (const db of Object.values(backends)) await migrate(db, MIGRATIONS);
});
after(async () => {
  for (const db of Object.values(backends)) await db?.close();
  await postgres?.drop();
  embedded.remove();
});

const count = async (db: Database) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_requests')).rows[0]!.n;

/** A logger that keeps its warnings (the courier logs through the app's). */
function recordingLog() {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    warn: (fields: Record<string, unknown> | string, message?: string) =>
      warnings.push(typeof fields === 'string' ? { fields: {}, message: fields } : { fields, message: message ?? '' }),
    error: () => {},
    info: () => {},
    debug: () => {},
  } as unknown as FastifyBaseLogger;
  return { log, warnings };
}

for (const backend of ['postgres', 'pglite'] as const) {
  test(`${backend}: a request is one row; past MAX_WAITING waiting, no more are stored`, async () => {
    const db = backends[backend];
    await db.query('DELETE FROM mail_requests');
    assert.equal(await storeMailRequest(db, reset('a@example.com')), true);
    await db.query(
      `INSERT INTO mail_requests (kind, email, lang) SELECT 'password_reset', 'n' || i || '@example.com', 'en'
         FROM generate_series(2, $1::int) AS i`,
      [MAX_WAITING],
    );
    assert.equal(await count(db), MAX_WAITING);
    assert.equal(await storeMailRequest(db, reset('one-too-many@example.com')), false);
    assert.equal(await count(db), MAX_WAITING);
    await db.query('DELETE FROM mail_requests');
  });

  test(`${backend}: claimed once at a time, due and within its lifetime only; settled only by its claim`, async () => {
    const db = backends[backend];
    await db.query('DELETE FROM mail_requests');
    await storeMailRequest(db, reset('first@example.com'));
    await storeMailRequest(db, {
      kind: 'sign_in_code',
      email: 'second@example.com',
      lang: 'fr',
      boundTo: 'ab'.repeat(32),
    });
    await storeMailRequest(db, reset('late@example.com'));
    await db.query(
      `UPDATE mail_requests SET requested_at = now() - interval '31 minutes' WHERE email = 'late@example.com'`,
    );

    const first = (await claimMailRequest(db, LIFETIMES, 60))!;
    assert.deepEqual(
      { ...first, id: undefined },
      { ...reset('first@example.com'), id: undefined, boundTo: undefined, attempts: 1 },
    );
    const second = (await claimMailRequest(db, LIFETIMES, 60))!;
    assert.equal(second.email, 'second@example.com');
    assert.equal(second.lang, 'fr');
    assert.equal(second.boundTo, 'ab'.repeat(32));
    assert.equal(await claimMailRequest(db, LIFETIMES, 60), undefined, 'the first two are leased, the third too old');

    assert.deepEqual([...(await dropExpiredMailRequests(db, LIFETIMES))], [['password_reset', 1]]);
    assert.equal(await count(db), 2);

    await retryMailRequest(db, first, 0);
    const again = (await claimMailRequest(db, LIFETIMES, 60))!;
    assert.equal(again.id, first.id);
    assert.equal(again.attempts, 2);
    await removeMailRequest(db, first);
    assert.equal(await count(db), 2, 'a claim since overtaken settles nothing');
    await removeMailRequest(db, again);
    await removeMailRequest(db, second);
    assert.equal(await count(db), 0);
  });

  test(`${backend}: the courier sends at once when asked, retries a failure, gives up after MAX_ATTEMPTS without naming the address`, async () => {
    const db = backends[backend];
    await db.query('DELETE FROM mail_requests');
    const { log, warnings } = recordingLog();
    const sent: MailRequest[] = [];
    let refuse = false;
    const job = (what: string): MailJob => ({
      what,
      lifetimeSeconds: 600,
      async send(r) {
        if (refuse)
          throw Object.assign(
            new Error(`Can't send mail - all recipients were rejected: 550 <${r.email}>: no such user`),
            {
              code: 'EENVELOPE',
              responseCode: 550,
            },
          );
        sent.push(r);
      },
    });
    // No poll to speak of: only the wake after a request is stored can send it this soon.
    const courier = startCourier({
      db,
      log,
      pollMs: 600_000,
      jobs: { password_reset: job('reset'), sign_in_code: job('code') },
    });
    try {
      await courier.ask(reset('now@example.com'));
      await waitFor('the mail', () => sent.length === 1, 3_000);
      assert.equal(sent[0]!.email, 'now@example.com');
      await waitFor('the request settled', async () => (await count(db)) === 0, 3_000);

      refuse = true;
      await courier.ask(reset('refused@example.com'));
      await waitFor('a retry planned', () => warnings.some((w) => w.message === 'reset not sent: trying again'), 3_000);
      const row = (
        await db.query<{ attempts: number; later: boolean }>(
          'SELECT attempts, next_attempt_at > now() AS later FROM mail_requests',
        )
      ).rows[0]!;
      assert.deepEqual(row, { attempts: 1, later: true });

      await db.query('UPDATE mail_requests SET attempts = $1, next_attempt_at = now()', [MAX_ATTEMPTS - 1]);
      await courier.ask({ kind: 'sign_in_code', email: 'x@example.com', lang: 'en', boundTo: 'b' });
      await waitFor(
        'given up',
        () => warnings.some((w) => w.message === `reset dropped: not sent after ${MAX_ATTEMPTS} attempts`),
        5_000,
      );
      await waitFor(
        'the new one tried',
        () => warnings.some((w) => w.message === 'code not sent: trying again'),
        5_000,
      );
      // The new request woke the courier, which took the older one first (due first) and gave it up; the new one waits.
      const left = await db.query<{ email: string }>('SELECT email FROM mail_requests');
      assert.deepEqual(
        left.rows.map((r) => r.email),
        ['x@example.com'],
      );
      const logged = JSON.stringify(warnings);
      assert.doesNotMatch(logged, /refused@example\.com|x@example\.com/, 'no address in the log');
      assert.match(logged, /"code":"EENVELOPE","responseCode":550/);
      assert.match(logged, /550 <\[address\]>: no such user/);
    } finally {
      await courier.stop();
    }
  });

  test(`${backend}: stopping waits for the mail being sent`, async () => {
    const db = backends[backend];
    await db.query('DELETE FROM mail_requests');
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    let finished = false;
    const job: MailJob = {
      what: 'held',
      lifetimeSeconds: 600,
      async send() {
        started = true;
        await held;
        finished = true;
      },
    };
    const courier = startCourier({
      db,
      log: recordingLog().log,
      pollMs: 600_000,
      jobs: { password_reset: job, sign_in_code: job },
    });
    await courier.ask(reset('held@example.com'));
    await waitFor('the job started', () => started, 3_000);
    let stopped = false;
    const stopping = courier.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(stopped, false, 'still sending');
    release();
    await stopping;
    assert.equal(finished, true);
    assert.equal(await count(db), 0, 'the sent request is settled before the stop resolves');
  });
}

test('postgres: instances claim side by side (SKIP LOCKED): a request another holds is passed over, not waited for', async () => {
  const db = backends.postgres;
  await db.query('DELETE FROM mail_requests');
  await storeMailRequest(db, reset('held-elsewhere@example.com'));
  await storeMailRequest(db, reset('free@example.com'));
  await db.transaction(async (tx) => {
    await tx.query(`SELECT 1 FROM mail_requests WHERE email = 'held-elsewhere@example.com' FOR UPDATE`);
    const claimed = await claimMailRequest(db, LIFETIMES, 60);
    assert.equal(claimed?.email, 'free@example.com');
  });
  await db.query('DELETE FROM mail_requests');
});
