import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildIdentityApp, identityRuntime } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import type { App } from '../../src/kit/app.ts';
import { startServer, freePort, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { authorizeUrl } from './mfa-support.ts';
import { startSmtp, type Mail } from './smtp-support.ts';
import { waitFor } from '../support/wait.ts';

/**
 * "Forgot password" and sign-in code mails survive what the page's answer cannot wait for (src/identity/courier/): an
 * SMTP outage, an instance closed before it mailed, and they leave a stored request that tells nothing about the
 * address and holds no secret.
 */

const CALLBACK = 'http://localhost:8765/callback';
const COLUMNS = ['attempts', 'bound_to', 'email', 'id', 'kind', 'lang', 'next_attempt_at', 'requested_at'];
const servers: Server[] = [];
const others: App[] = [];
const relays: Awaited<ReturnType<typeof startSmtp>>[] = [];

after(async () => {
  for (const app of others) await app.close();
  for (const s of servers) await s.close();
  for (const r of relays) await r.close();
});

/** An identity server whose SMTP relay is down (nothing listens on its port yet); `relayUp` starts one there. */
async function serverWithRelayDown(
  label: string,
): Promise<{ server: Server; relayUp(): ReturnType<typeof startSmtp> }> {
  const port = await freePort();
  const server = await startServer(label, {
    IDENTITY_SMTP_URL: `smtp://127.0.0.1:${port}`,
    IDENTITY_PASSWORD_RESET_FREE_REQUESTS: '20',
    IDENTITY_WEBHOOK_POLL_MS: '100',
  });
  servers.push(server);
  return {
    server,
    async relayUp() {
      const relay = await startSmtp(port);
      relays.push(relay);
      return relay;
    },
  };
}

/** The forgot-password form posted from its page (cookie-bound CSRF). */
async function askReset(server: Server, email: string) {
  const b = new TestBrowser();
  const form = await b.request(`${server.issuer}/account/forgot-password`);
  const res = await b.request(`${server.issuer}/account/forgot-password`, {
    form: { csrf: field(await form.text(), 'csrf')!, email },
  });
  return { status: res.status, html: await res.text() };
}

/** An app's sign-in page opened (before anything is locked), and "Email me a sign-in code" posted from it. */
async function openSignIn(server: Server, clientId: string) {
  const b = new TestBrowser();
  const start = await b.follow(authorizeUrl(server.issuer, clientId, CALLBACK), CALLBACK);
  const uid = /\/interaction\/([^/"]+)\/login/.exec(start.html)![1]!;
  return {
    uid,
    async ask(email: string) {
      const res = await b.request(`${server.issuer}/interaction/${uid}/email-code`, {
        form: { csrf: field(start.html, 'csrf')!, email, password: '' },
      });
      return { status: res.status, html: await res.text() };
    },
  };
}

const codeApp = (server: Server) =>
  server.registerApp({
    name: 'Notes',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    emailCodeSignIn: true,
  });

interface Row {
  id: string;
  kind: string;
  email: string;
  lang: string;
  bound_to: string | null;
  attempts: number;
}

const rows = async (server: Pick<Server, 'runtime'>) =>
  (
    await server.runtime.db.query<Row>(
      'SELECT id::text, kind, email, lang, bound_to, attempts FROM mail_requests ORDER BY id',
    )
  ).rows;

const linkIn = (mail: Mail) => /\/account\/choose-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
const codeIn = (mail: Mail) => /^Subject: Your sign-in code: (\d{6})/m.exec(mail.text)![1]!;

test('asked while the SMTP relay is down, both mails go once it is back; the stored requests never held the link or the code', async () => {
  const { server, relayUp } = await serverWithRelayDown('idcourierdown');
  await server.createHuman('ines@example.com', 'ines has a long password');
  const app = await codeApp(server);
  const signIn = await openSignIn(server, app.clientId);

  assert.equal((await askReset(server, 'ines@example.com')).status, 200);
  assert.equal((await signIn.ask('ines@example.com')).status, 200);
  // Tried and failed (the relay refuses the connection), kept for a retry: what a reader of the table sees meanwhile.
  const waiting = await waitFor('both requests tried', async () => {
    const r = await rows(server);
    return r.length === 2 && r.every((row) => row.attempts >= 1) ? r : undefined;
  });
  const columns = await server.runtime.db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'identity' AND table_name = 'mail_requests'
      ORDER BY column_name`,
  );
  assert.deepEqual(
    columns.rows.map((c) => c.column_name),
    COLUMNS,
    'who asked for what and when: no column for a secret',
  );

  const relay = await relayUp();
  await waitFor('both mails', () => relay.mails.length >= 2, 20_000);
  await waitFor('the requests settled', async () => (await rows(server)).length === 0);
  assert.equal(relay.mails.length, 2, 'each mailed once');
  const reset = relay.mails.find((m) => /choose-password/.test(m.text))!;
  const code = relay.mails.find((m) => /sign-in code/.test(m.text))!;
  assert.deepEqual(reset.to, ['ines@example.com']);
  assert.deepEqual(code.to, ['ines@example.com']);
  const token = linkIn(reset);
  const digits = codeIn(code);
  for (const row of waiting)
    for (const value of [row.kind, row.email, row.lang, row.bound_to ?? '']) {
      assert.ok(!value.includes(token), 'the reset token is made when the request is handled, not stored with it');
      assert.ok(!value.includes(digits), 'nor the code');
    }
  // The link and the code that were mailed work (the ones made at the failed attempts were replaced).
  const opened = await fetch(`${server.issuer}/account/choose-password?token=${token}`);
  assert.equal(opened.status, 200);
  assert.match(await opened.text(), /<h1>Choose a new password<\/h1>/);
});

test('a request stored on an instance closed before it could mail is mailed by another instance on the same database', async () => {
  const { server } = await serverWithRelayDown('idcourierhandover');
  await server.createHuman('jonas@example.com', 'jonas has a long password');
  assert.equal((await askReset(server, 'jonas@example.com')).status, 200);
  await waitFor('the first instance tried', async () => (await rows(server))[0]?.attempts === 1);
  // The first instance stops (a restart, a crash's replacement); its request stays in the database.
  await server.app.close();

  const relay = await startSmtp();
  relays.push(relay);
  const second = await buildIdentityApp(
    loadIdentityConfig({ ...server.env, IDENTITY_SMTP_URL: relay.url, IDENTITY_WEBHOOK_POLL_MS: '100' }),
  );
  others.push(second);
  await waitFor('the mail from the second instance', () => relay.mails.length === 1, 20_000);
  assert.deepEqual(relay.mails[0]!.to, ['jonas@example.com']);
  assert.match(relay.mails[0]!.text, /\/account\/choose-password\?token=/);
  await waitFor('the request settled', async () => (await rows({ runtime: identityRuntime(second) })).length === 0);
});

test('an unknown address: the same answer and the same stored request as an account, and no mail', async () => {
  const relay = await startSmtp();
  relays.push(relay);
  const server = await startServer('idcourierunknown', {
    IDENTITY_SMTP_URL: relay.url,
    IDENTITY_PASSWORD_RESET_FREE_REQUESTS: '20',
  });
  servers.push(server);
  await server.createHuman('known@example.com', 'known has a long password');
  const app = await codeApp(server);
  const [unknownSignIn, knownSignIn] = [await openSignIn(server, app.clientId), await openSignIn(server, app.clientId)];
  const db = server.runtime.db;

  // With the people table locked, no look-up can finish: the requests are answered and stored before any is made.
  const seen = await db.transaction(async (tx) => {
    await tx.query('LOCK TABLE humans IN ACCESS EXCLUSIVE MODE');
    const answers = {
      reset: [await askReset(server, 'nobody@example.com'), await askReset(server, 'known@example.com')],
      code: [await unknownSignIn.ask('nobody@example.com'), await knownSignIn.ask('known@example.com')],
    };
    const stored = await tx.query<Row>(
      'SELECT id::text, kind, email, lang, bound_to, attempts FROM mail_requests ORDER BY id',
    );
    return { answers, stored: stored.rows };
  });

  const { answers, stored } = seen;
  for (const [unknown, known] of [answers.reset, answers.code] as const) {
    assert.equal(unknown!.status, 200);
    assert.equal(known!.status, 200);
  }
  assert.equal(
    answers.reset[0]!.html.replace('nobody@example.com', 'X'),
    answers.reset[1]!.html.replace('known@example.com', 'X'),
  );
  const page = (html: string, email: string, uid: string) =>
    html
      .replaceAll(email, 'X')
      .replaceAll(uid, 'U')
      .replace(/name="csrf" value="[^"]*"/, '');
  assert.equal(
    page(answers.code[0]!.html, 'nobody@example.com', unknownSignIn.uid),
    page(answers.code[1]!.html, 'known@example.com', knownSignIn.uid),
  );

  // One request each, alike but for the address (and, for codes, the sign-in request it is bound to).
  const shape = (r: Row) => ({ kind: r.kind, lang: r.lang, bound: r.bound_to === null ? null : r.bound_to.length });
  assert.deepEqual(
    stored.map((r) => r.email),
    ['nobody@example.com', 'known@example.com', 'nobody@example.com', 'known@example.com'],
  );
  assert.deepEqual(shape(stored[0]!), shape(stored[1]!));
  assert.deepEqual(shape(stored[2]!), shape(stored[3]!));
  assert.deepEqual(shape(stored[2]!), { kind: 'sign_in_code', lang: 'en', bound: 64 });

  // Once the lock goes: the account's two mails, nothing for the unknown address, and every request settled.
  await waitFor('the requests settled', async () => (await rows(server)).length === 0);
  await waitFor('both mails', () => relay.mails.length === 2);
  assert.deepEqual(
    relay.mails.map((m) => m.to),
    [['known@example.com'], ['known@example.com']],
  );
});

test('a request older than its link lives is dropped, not mailed late', async () => {
  const { server, relayUp } = await serverWithRelayDown('idcourierlate');
  await server.createHuman('karl@example.com', 'karl has a long password');
  assert.equal((await askReset(server, 'karl@example.com')).status, 200);
  // As if the relay had been down for longer than IDENTITY_PASSWORD_RESET_TTL (30 min): aged once it failed and waits
  // for its retry, not while an attempt holds it (its lease pushed next_attempt_at two minutes on).
  await waitFor('tried once, then aged', async () => {
    const aged = await server.runtime.db.query(
      `UPDATE mail_requests SET requested_at = now() - interval '31 minutes'
        WHERE attempts >= 1 AND next_attempt_at < now() + interval '1 minute' RETURNING id`,
    );
    return aged.rowCount === 1;
  });
  const relay = await relayUp();
  await waitFor('the request dropped', async () => (await rows(server)).length === 0);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(relay.mails.length, 0);
});
