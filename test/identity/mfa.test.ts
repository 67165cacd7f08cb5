import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { freshCode } from './mfa-support.ts';
import { confirmEnrollment, hasTotp, pendingEnrollment, verifyTotp } from '../../src/identity/mfa/totp.ts';
import { useRecoveryCode } from '../../src/identity/mfa/recovery-codes.ts';
import { consumeChallenge, newChallenge } from '../../src/identity/mfa/challenges.ts';
import { revokeCredential } from '../../src/identity/credentials/store.ts';
import { identityCommand } from '../../src/identity/cli/command.ts';
import { sha256Hex } from '../../src/kit/crypto.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';

// The second factor and passkeys over HTTP and at the store: bad inputs, single use, concurrency, revocation.
// The pages themselves are driven in Chromium by mfa-totp-chromium.test.ts and mfa-passkey-chromium.test.ts.

let server: Server;
const ADMIN_TOKEN = 'admin-token-for-the-mfa-test-0123456789abcdef';
let clientId: string;
const cleo = { email: 'cleo@example.com', password: 'cleo has a long password' };
let cleoId: string;
let secret: string;
let lastStep = -1;
let recovery: string[];

before(async () => {
  server = await startServer('idmfa', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  cleoId = await server.createHuman(cleo.email, cleo.password);
  clientId = (await server.registerApp({ name: 'Web', appType: 'web', redirectUris: [CALLBACK], firstParty: true }))
    .clientId;
  const { db, secretKey } = server.runtime;
  const pending = await pendingEnrollment(db, secretKey, cleoId, cleo.email, 'localhost');
  secret = pending.secret;
  const first = freshCode(secret, lastStep);
  const done = await confirmEnrollment(db, secretKey, cleoId, pending.credentialId, first.code);
  assert.ok(done.ok);
  lastStep = first.step;
  recovery = done.recoveryCodes;
});
after(async () => server?.close());

/**
 * A code is accepted once per 30 s step, and at most one step ahead of the clock, so a test signing in more
 * than twice within one step would run out of codes; each test that needs a code starts by forgetting the
 * steps used before it (what the one-use rule does is tested on its own below).
 */
async function forgetUsedSteps(): Promise<void> {
  await server.runtime.db.query(
    "UPDATE credentials SET metadata = '{}'::jsonb WHERE principal_id = $1 AND type = 'totp'",
    [cleoId],
  );
  lastStep = -1;
}

function authorizeUrl(): string {
  return `${server.issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'openid email', state: 's1' })}`;
}

/** Opens a sign-in request and passes the password step; returns the second-factor page. */
async function atSecondStep(
  browser = new TestBrowser(),
): Promise<{ browser: TestBrowser; html: string; action: string; csrf: string; uid: string }> {
  const start = await browser.follow(authorizeUrl(), CALLBACK);
  assert.match(start.html, /<h1>Sign in<\/h1>/);
  const loginAction = new URL(/action="([^"]+\/login)"/.exec(start.html)![1]!, server.issuer).href;
  const res = await browser.request(loginAction, {
    form: { csrf: field(start.html, 'csrf')!, email: cleo.email, password: cleo.password },
  });
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<h1>Two-step verification<\/h1>/);
  const action = new URL(/action="([^"]+\/mfa)"/.exec(html)![1]!, server.issuer).href;
  return { browser, html, action, csrf: field(html, 'csrf')!, uid: /\/interaction\/([^/]+)\/mfa/.exec(action)![1]! };
}

test('second-factor form: a wrong, empty, malformed or cross-site code gets a clear page, never a 500; the right code finishes', async () => {
  await forgetUsedSteps();
  const step = await atSecondStep();
  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    step.browser.request(step.action, { form, headers });

  const noCsrf = await post({ code: '123456' });
  assert.equal(noCsrf.status, 403);
  assert.match(await noCsrf.text(), /Request refused/);
  const crossSite = await post({ csrf: step.csrf, code: '123456' }, { origin: 'https://evil.example' });
  assert.equal(crossSite.status, 403);

  const empty = await post({ csrf: step.csrf, code: '' });
  assert.equal(empty.status, 400);
  assert.match(await empty.text(), /Enter the code from your authenticator app/);
  const letters = await post({ csrf: step.csrf, code: 'not a code at all' });
  assert.equal(letters.status, 401);
  const lettersHtml = await letters.text();
  assert.match(lettersHtml, /role="alert"[^>]*>The code is not correct/);
  assert.match(lettersHtml, /aria-invalid="true" aria-describedby="form-error code-hint"/);
  const tooLong = await post({ csrf: step.csrf, code: '1'.repeat(100) });
  assert.equal(tooLong.status, 400);
  assert.match(tooLong.headers.get('content-type')!, /text\/html/);

  const now = TOTP.counter({ period: 30 });
  const valid = new Set(
    [-1, 0, 1].map((d) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: (now + d) * 30_000 })),
  );
  const wrong = ['000000', '111111', '222222'].find((c) => !valid.has(c))!;
  const wrongCode = await post({ csrf: step.csrf, code: wrong });
  assert.equal(wrongCode.status, 401);

  const code = freshCode(secret, lastStep);
  lastStep = code.step;
  const ok = await post({ csrf: step.csrf, code: code.code });
  assert.equal(ok.status, 303);
  assert.ok(step.browser.cookie('__Host-svc_login'), 'signed in: the login session cookie is set');
  const pending = await server.runtime.db.query('SELECT 1 FROM mfa_pending');
  assert.equal(pending.rowCount, 0, 'the pending step is gone once passed');
});

test('second-factor form: a step that is no longer open is refused (never signs in on a stale or foreign interaction)', async () => {
  const step = await atSecondStep();
  await server.runtime.db.query('DELETE FROM mfa_pending');
  const code = freshCode(secret, lastStep);
  const res = await step.browser.request(step.action, { form: { csrf: step.csrf, code: code.code } });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /no longer open/);
  assert.equal(step.browser.cookie('__Host-svc_login'), undefined);
});

test('TOTP: the same code presented twice at once signs in once; an older step is refused after a newer one', async () => {
  const { db, secretKey } = server.runtime;
  await forgetUsedSteps();
  const code = freshCode(secret, lastStep);
  lastStep = code.step;
  const results = await Promise.all([1, 2, 3].map(() => verifyTotp(db, secretKey, cleoId, code.code, '127.0.0.1')));
  assert.deepEqual(results.sort(), ['ok', 'reused', 'reused']);
  const older = TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: (code.step - 1) * 30_000 });
  assert.notEqual(await verifyTotp(db, secretKey, cleoId, older, undefined), 'ok');
  assert.equal(await verifyTotp(db, secretKey, cleoId, 'abcdef', undefined), 'wrong');
});

test('recovery codes: each works once, in any case and with or without the dash, even when two requests race', async () => {
  const { db, secretKey } = server.runtime;
  const [a, b] = recovery as [string, string];
  const raced = await Promise.all([
    useRecoveryCode(db, secretKey, cleoId, a),
    useRecoveryCode(db, secretKey, cleoId, a.toUpperCase()),
  ]);
  assert.deepEqual(raced.sort(), [false, true]);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, a), false);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, b.replace('-', '')), true);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, 'zzzzz-zzzzz'), false);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, ''), false);
});

test('passkey endpoints: missing CSRF, a gone interaction, a malformed or unknown answer and a replayed challenge get clear errors, never a 500', async () => {
  const browser = new TestBrowser();
  const start = await browser.follow(authorizeUrl(), CALLBACK);
  const passkeyAction = new URL(/action="([^"]+\/passkey)"/.exec(start.html)![1]!, server.issuer).href;
  const optionsUrl = `${passkeyAction}/options`;
  const csrf = /id="passkey-signin"[\s\S]*?name="csrf" value="([^"]+)"/.exec(start.html)![1]!;

  const noCsrf = await browser.request(optionsUrl, { method: 'POST' });
  assert.equal(noCsrf.status, 403);
  assert.equal(((await noCsrf.json()) as { error: string }).error, 'access_denied');
  const gone = await browser.request(optionsUrl.replace(/interaction\/[^/]+/, 'interaction/nope'), {
    method: 'POST',
    headers: { 'x-csrf-token': csrf },
  });
  assert.equal(gone.status, 400);
  assert.equal(((await gone.json()) as { error: string }).error, 'invalid_request');

  const optionsRes = await browser.request(optionsUrl, { method: 'POST', headers: { 'x-csrf-token': csrf } });
  assert.equal(optionsRes.status, 200);
  const options = (await optionsRes.json()) as {
    rpId: string;
    userVerification: string;
    allowCredentials?: unknown[];
    challenge: string;
  };
  assert.equal(options.rpId, 'localhost');
  assert.equal(options.userVerification, 'required', 'a passkey that signs in alone must verify the person');
  assert.deepEqual(options.allowCredentials ?? [], [], 'usernameless: the browser offers its discoverable passkeys');
  assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
  const stored = await server.runtime.db.query<{ challenge_hash: string }>(
    'SELECT challenge_hash FROM webauthn_challenges',
  );
  assert.ok(
    stored.rows.every((r) => r.challenge_hash !== options.challenge),
    'only the hash of a challenge is stored',
  );

  const submit = (response: string | undefined) =>
    browser.request(passkeyAction, { form: { csrf, ...(response === undefined ? {} : { response }) } });
  const clientData = (challenge: string) =>
    Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: server.issuer })).toString('base64url');
  const answer = (challenge: string) =>
    JSON.stringify({
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: clientData(challenge), authenticatorData: 'AAAA', signature: 'AAAA' },
    });

  for (const [response, status, message] of [
    [undefined, 400, /missing/],
    ['{"id":', 400, /could not be read/],
    ['[1,2,3]', 400, /could not be read/],
    [JSON.stringify({ id: 'x', response: { clientDataJSON: '%%%' } }), 400, /could not be read/],
    [answer('an-unknown-challenge'), 400, /expired or was already used/],
    [answer(options.challenge), 401, /not registered/],
    [answer(options.challenge), 400, /expired or was already used/],
  ] as const) {
    const res = await submit(response);
    const html = await res.text();
    assert.equal(res.status, status, `${response}: ${html.slice(0, 200)}`);
    assert.match(html, message);
    assert.match(html, /<h1>Sign in<\/h1>/, 'the sign-in page again, with the error');
  }
});

test('WebAuthn challenges: single use, expiring, bound to their purpose and to what they were issued for', async () => {
  const { db } = server.runtime;
  const c1 = await newChallenge(db, 'sign_in', 'interaction:a', null);
  assert.deepEqual(await consumeChallenge(db, c1, 'sign_in', 'interaction:a'), { principalId: null });
  assert.equal(await consumeChallenge(db, c1, 'sign_in', 'interaction:a'), undefined, 'a spent challenge is refused');
  const c2 = await newChallenge(db, 'sign_in', 'interaction:a', null);
  assert.equal(
    await consumeChallenge(db, c2, 'sign_in', 'interaction:b'),
    undefined,
    'another interaction cannot use it',
  );
  assert.equal(await consumeChallenge(db, c2, 'sign_in', 'interaction:a'), undefined, 'and a refused try spends it');
  const c3 = await newChallenge(db, 'register', 'security:x', cleoId);
  assert.equal(
    await consumeChallenge(db, c3, 'sign_in', 'security:x'),
    undefined,
    'a registration challenge does not sign in',
  );
  const c4 = await newChallenge(db, 'second_factor', 'interaction:c', cleoId);
  await db.query("UPDATE webauthn_challenges SET expires_at = now() - interval '1 second'");
  assert.equal(
    await consumeChallenge(db, c4, 'second_factor', 'interaction:c'),
    undefined,
    'an expired challenge is refused',
  );
});

test('security pages: refused without a login session or a CSRF token; enrolling twice is a conflict', async () => {
  const anonymous = new TestBrowser();
  // The pages send a signed-out browser through the one sign-in and back; a form posted signed out gets a page linking there.
  for (const path of ['/account/security', '/account/security/totp']) {
    const res = await anonymous.request(`${server.issuer}${path}`);
    assert.equal(res.status, 303, path);
    assert.equal(res.headers.get('location'), `/signin?return_to=${encodeURIComponent(path)}`);
  }
  const postAnon = await anonymous.request(`${server.issuer}/account/security/totp/remove`, { form: { csrf: 'x' } });
  assert.equal(postAnon.status, 401);
  assert.match(await postAnon.text(), /Signed out[\s\S]*href="\/signin\?return_to=%2Faccount%2Fsecurity"/);
  const optionsAnon = await anonymous.request(`${server.issuer}/account/security/passkeys/options`, { method: 'POST' });
  assert.equal(optionsAnon.status, 401);
  assert.equal(((await optionsAnon.json()) as { error: string }).error, 'login_required');

  // Cleo signs in (password, then a code) and opens her security page.
  await forgetUsedSteps();
  const step = await atSecondStep();
  const code = freshCode(secret, lastStep);
  lastStep = code.step;
  assert.equal((await step.browser.request(step.action, { form: { csrf: step.csrf, code: code.code } })).status, 303);
  const page = await step.browser.request(`${server.issuer}/account/security`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /An authenticator app is set up/);
  const csrf = field(html, 'csrf')!;
  const noCsrf = await step.browser.request(`${server.issuer}/account/security/totp/remove`, { form: {} });
  assert.equal(noCsrf.status, 403);
  const badPasskey = await step.browser.request(`${server.issuer}/account/security/passkeys`, {
    form: { csrf, response: 'garbage' },
  });
  assert.equal(badPasskey.status, 400);
  assert.match(await badPasskey.text(), /could not be read/);
  const second = await step.browser.request(`${server.issuer}/account/security/totp`, {
    form: { csrf, enrollment: 'not-a-uuid', code: '123456' },
  });
  assert.equal(second.status, 409, 'one live authenticator per person');
  assert.deepEqual(
    await confirmEnrollment(server.runtime.db, server.runtime.secretKey, cleoId, 'not-a-uuid', '123456'),
    { ok: false, reason: 'expired' },
  );
  const again = await step.browser.request(`${server.issuer}/account/security/totp`);
  assert.equal(again.status, 409);
  assert.match(await again.text(), /already set up/);
  assert.equal(
    (await step.browser.request(`${server.issuer}/account/security/passkeys/not-a-uuid/remove`, { form: { csrf } }))
      .status,
    404,
  );
});

test('an authenticator revoked through the management API stops being asked for, and its recovery codes stop working', async () => {
  const { db, secretKey } = server.runtime;
  const row = (
    await db.query<{ id: string }>(
      "SELECT id FROM credentials WHERE principal_id = $1 AND type = 'totp' AND NOT revoked",
      [cleoId],
    )
  ).rows[0]!;
  await revokeCredential(db, cleoId, row.id, 'admin_revoked');
  assert.equal(await hasTotp(db, cleoId), false);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, recovery[5]!), false);
  const { sawSignIn } = await authorizeInBrowser(server.issuer, new TestBrowser(), authorizeUrl(), cleo);
  assert.ok(sawSignIn, 'the password alone signs in again');
});

test('the agents page has no password sign-in of its own: a signed-out browser goes to the one sign-in (with its second step)', async () => {
  const { db, secretKey } = server.runtime;
  const pending = await pendingEnrollment(db, secretKey, cleoId, cleo.email, 'localhost');
  secret = pending.secret;
  const first = freshCode(secret, -1);
  assert.ok((await confirmEnrollment(db, secretKey, cleoId, pending.credentialId, first.code)).ok);
  lastStep = first.step;
  const browser = new TestBrowser();
  const page = await browser.request(`${server.issuer}/agents`);
  assert.equal(page.status, 303);
  assert.equal(page.headers.get('location'), '/signin?return_to=%2Fagents');
  const gone = await browser.request(`${server.issuer}/agents/signin`, {
    form: { csrf: 'x', email: cleo.email, password: cleo.password },
  });
  assert.equal(gone.status, 404, 'the old password form is gone');
  assert.equal(browser.cookie('__Host-svc_login'), undefined);
});

test('removing a factor needs a recent second step: a login session without one, or with an old one, is sent to sign in again', async () => {
  const { db, secretKey } = server.runtime;
  assert.equal(await hasTotp(db, cleoId), true);
  await forgetUsedSteps();
  const step = await atSecondStep();
  const code = freshCode(secret, lastStep);
  lastStep = code.step;
  assert.equal((await step.browser.request(step.action, { form: { csrf: step.csrf, code: code.code } })).status, 303);
  const session = sha256Hex(step.browser.cookie('__Host-svc_login')!);
  const stamp = (
    await db.query<{ second_factor_at: Date | null }>(
      'SELECT second_factor_at FROM login_sessions WHERE token_hash = $1',
      [session],
    )
  ).rows[0]!;
  assert.ok(stamp.second_factor_at, 'the session records its second step');
  const csrf = field(await (await step.browser.request(`${server.issuer}/account/security`)).text(), 'csrf')!;
  const remove = () => step.browser.request(`${server.issuer}/account/security/totp/remove`, { form: { csrf } });

  for (const [when, label] of [
    ["now() - interval '11 minutes'", 'an old second step'],
    ['NULL', 'no second step'],
  ] as const) {
    await db.query(`UPDATE login_sessions SET second_factor_at = ${when} WHERE token_hash = $1`, [session]);
    const refused = await remove();
    assert.equal(refused.status, 403, label);
    const page = await refused.text();
    assert.match(page, /<h1>Confirm it is you<\/h1>/, label);
    assert.match(
      page,
      /href="\/signin\?return_to=%2Faccount%2Fsecurity&amp;login_hint=cleo%40example.com&amp;prompt=login"/,
      label,
    );
    assert.equal(await hasTotp(db, cleoId), true, `${label}: nothing removed`);
    const passkeyRemove = await step.browser.request(
      `${server.issuer}/account/security/passkeys/00000000-0000-0000-0000-000000000000/remove`,
      { form: { csrf } },
    );
    assert.equal(passkeyRemove.status, 403, `${label}: passkeys too`);
  }

  await db.query('UPDATE login_sessions SET second_factor_at = now() WHERE token_hash = $1', [session]);
  const removed = await remove();
  assert.equal(removed.status, 200);
  assert.match(await removed.text(), /The authenticator app was removed/);
  assert.equal(await hasTotp(db, cleoId), false);

  // Set up again for the tests after this one.
  const pending = await pendingEnrollment(db, secretKey, cleoId, cleo.email, 'localhost');
  secret = pending.secret;
  const first = freshCode(secret, -1);
  assert.ok((await confirmEnrollment(db, secretKey, cleoId, pending.credentialId, first.code)).ok);
  lastStep = first.step;
});

test('repeated wrong codes slow down per account (429 with Retry-After)', async () => {
  assert.equal(await hasTotp(server.runtime.db, cleoId), true);
  const step = await atSecondStep();
  let last: Response | undefined;
  for (let i = 0; i < 7; i++)
    last = await step.browser.request(step.action, { form: { csrf: step.csrf, code: 'wrongwrong' } });
  assert.equal(last!.status, 429);
  assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  assert.match(await last!.text(), /Too many wrong codes/);
});

test('management API: the authenticator app and passkeys are listed as credentials, never with a secret', async () => {
  const { db } = server.runtime;
  await db.query(
    `INSERT INTO credentials (principal_id, type, identifier, webauthn_credential_id, webauthn_public_key, webauthn_aaguid, webauthn_sign_count, name)
     VALUES ($1, 'webauthn', 'api-listed-passkey', '\\x01', '\\x02', 'adce0002-35bc-c60a-648b-0b25f1f05503', 7, 'Tablet')`,
    [cleoId],
  );
  const res = await fetch(`${server.issuer}/api/v1/principals/${cleoId}/credentials`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(!text.includes('secret_hash') && !text.includes('"v1.'), 'no sealed secret or hash in the answer');
  const items = (
    JSON.parse(text) as {
      items: {
        type: string;
        name: string | null;
        webauthn_aaguid?: string | null;
        webauthn_sign_count?: number | null;
        active: boolean;
        revoked: boolean;
      }[];
    }
  ).items;
  const passkey = items.find((c) => c.name === 'Tablet')!;
  assert.equal(passkey.type, 'webauthn');
  assert.equal(passkey.webauthn_aaguid, 'adce0002-35bc-c60a-648b-0b25f1f05503');
  assert.equal(passkey.webauthn_sign_count, 7);
  const totp = items.filter((c) => c.type === 'totp' && c.active && !c.revoked);
  assert.equal(totp.length, 1);
  assert.equal(totp[0]!.webauthn_sign_count, null);
});

test("platform identity mfa reset: an operator revokes a locked-out person's second factors", async () => {
  const { db, secretKey } = server.runtime;
  await db.query(
    `INSERT INTO credentials (principal_id, type, identifier, webauthn_credential_id, webauthn_public_key, name)
     VALUES ($1, 'webauthn', 'cli-test-passkey', '\\x01', '\\x02', 'Phone')`,
    [cleoId],
  );
  assert.equal(await hasTotp(db, cleoId), true);
  const out: string[] = [];
  const err: string[] = [];
  const run = (...args: string[]) =>
    identityCommand(args, loadIdentityConfig(server.env), { out: (l) => out.push(l), err: (l) => err.push(l) });
  assert.equal(await run('mfa', 'reset', '--email', cleo.email, '--json'), 0, err.join('\n'));
  assert.deepEqual(
    JSON.parse(out.join('\n')),
    { principal_id: cleoId, revoked: { totp: 1, webauthn: 2 } },
    'the authenticator app and both passkeys',
  );
  assert.equal(await hasTotp(db, cleoId), false);
  assert.equal(
    (
      await db.query(
        "SELECT 1 FROM credentials WHERE principal_id = $1 AND type IN ('totp', 'webauthn') AND NOT revoked",
        [cleoId],
      )
    ).rowCount,
    0,
  );
  assert.equal((await db.query('SELECT 1 FROM mfa_recovery_codes WHERE principal_id = $1', [cleoId])).rowCount, 0);
  assert.equal(await useRecoveryCode(db, secretKey, cleoId, recovery[9]!), false);
  assert.equal(await run('mfa', 'reset', '--email', 'nobody@example.com'), 1);
  assert.match(err.join('\n'), /no person with the email nobody@example.com/);
  assert.equal(await run('mfa', 'reset'), 2, 'a missing --email is a usage error');
});
