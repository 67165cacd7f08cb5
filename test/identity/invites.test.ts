import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { chromium } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';

// A local SMTP server stands in for the operator's mail relay: every message it receives is kept.
const mails: { to: string[]; text: string }[] = [];
let mailWaiters: ((m: { to: string[]; text: string }) => void)[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      // Quoted-printable bodies wrap long lines with soft breaks and escape '=': undone here to read the link.
      const raw = Buffer.concat(chunks).toString('utf8');
      const text = raw
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const mail = { to: session.envelope.rcptTo.map((r) => r.address), text };
      mails.push(mail);
      const waiters = mailWaiters;
      mailWaiters = [];
      for (const w of waiters) w(mail);
      done();
    });
  },
});

let server: Server;
let adminToken: string;
let orgId: string;
const admin = { email: 'inviter@example.com', password: 'a long admin passphrase' };
const grace = { email: 'grace@example.com', password: 'grace has a long password' };
const mallory = { email: 'mallory@example.com', password: 'mallory has a long password' };
const tokens = new Map<string, string>();

async function tokenFor(who: { email: string; password: string }, scope = 'openid') {
  const app = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'admin'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  return (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier })).access_token;
}

function call(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) {
  const token = init.token === undefined ? adminToken : init.token;
  return fetch(`${server.issuer}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
}
const api = (path: string, init: { method?: string; body?: unknown } = {}) => call(`/api/v1${path}`, init);
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

async function invite(email: string, role?: string) {
  const next = new Promise<{ to: string[]; text: string }>((resolve) => mailWaiters.push(resolve));
  const r = await api(`/organizations/${orgId}/invites`, {
    method: 'POST',
    body: { email, ...(role ? { role } : {}), message: 'Welcome aboard' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { ...r.body, mail: await next };
}

before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  server = await startServer('idinvites', {
    IDENTITY_SMTP_URL: `smtp://127.0.0.1:${port}`,
    IDENTITY_MAIL_FROM: 'team@platform.example',
  });
  await server.createHuman(admin.email, admin.password, true);
  await server.createHuman(grace.email, grace.password);
  await server.createHuman(mallory.email, mallory.password);
  adminToken = await tokenFor(admin, 'openid admin');
  tokens.set(grace.email, await tokenFor(grace));
  tokens.set(mallory.email, await tokenFor(mallory));
  orgId = (await api('/organizations', { method: 'POST', body: { name: 'Analytical Engines', slug: 'engines' } })).body
    .id;
});
after(async () => {
  await server?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

test('an invitation is mailed with its link; the token is shown once and stored only as a hash', async () => {
  const issued = await invite('Grace@Example.com', 'editor');
  assert.equal(issued.mailed, true);
  assert.equal(issued.invite.status, 'pending');
  assert.equal(issued.invite.email, 'grace@example.com');
  assert.equal(issued.invite.role, 'editor');
  assert.equal(issued.invite.resend_count, 0);
  const token = tokenOf(issued.link);
  assert.match(token, /^inv_[A-Za-z0-9_-]{43}$/);
  assert.ok(issued.link.startsWith(`${server.issuer}/invites/accept?token=`));
  assert.deepEqual(issued.mail.to, ['grace@example.com']);
  assert.ok(issued.mail.text.includes(issued.link), 'the mail carries the link');
  assert.ok(issued.mail.text.includes('Analytical Engines'));
  const read = await api(`/organizations/${orgId}/invites/${issued.invite.id}`);
  assert.ok(!JSON.stringify(read.body).includes(token));
  const rows = JSON.stringify((await server.runtime.db.query('SELECT * FROM invites')).rows);
  assert.ok(!rows.includes(token), 'no invite token in the database');

  assert.equal(
    (await api(`/organizations/${orgId}/invites`, { method: 'POST', body: { email: 'grace@example.com' } })).status,
    409,
    'one pending invitation per address',
  );
  assert.equal(
    (await api(`/organizations/${orgId}/invites`, { method: 'POST', body: { email: 'not an email' } })).status,
    400,
  );
  assert.equal(
    (
      await api('/organizations/00000000-0000-4000-8000-000000000000/invites', {
        method: 'POST',
        body: { email: 'x@example.com' },
      })
    ).status,
    404,
  );

  const wrong = await call('/api/v1/invitations/accept', {
    method: 'POST',
    body: { token },
    token: tokens.get(mallory.email)!,
  });
  assert.equal(wrong.status, 403, 'accepting as another person is refused');
  assert.equal((await api(`/organizations/${orgId}/invites/${issued.invite.id}`)).body.status, 'pending');
  assert.equal(
    (await call('/api/v1/invitations/accept', { method: 'POST', body: { token }, token: null })).status,
    401,
    'accepting needs a signed-in person',
  );
  assert.equal(
    (
      await call('/api/v1/invitations/accept', {
        method: 'POST',
        body: { token: 'inv_nothing' },
        token: tokens.get(grace.email)!,
      })
    ).status,
    404,
  );

  const accepted = await call('/api/v1/invitations/accept', {
    method: 'POST',
    body: { token },
    token: tokens.get(grace.email)!,
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.invite.status, 'accepted');
  assert.ok(accepted.body.invite.accepted_at);
  const graceId = accepted.body.invite.accepted_by_principal_id;
  const membership = await api(`/organizations/${orgId}/members/${graceId}`);
  assert.equal(membership.body.id, accepted.body.membership_id);
  assert.equal(membership.body.role, 'editor');
  assert.equal(membership.body.active, true);

  for (const [path, body] of [
    ['/api/v1/invitations/accept', { token }],
    ['/api/v1/invitations/decline', { token }],
  ] as const) {
    assert.equal(
      (await call(path, { method: 'POST', body, token: tokens.get(grace.email)! })).status,
      409,
      `${path} after acceptance`,
    );
  }
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${issued.invite.id}/revoke`, { method: 'POST' })).status,
    409,
  );
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${issued.invite.id}/resend`, { method: 'POST' })).status,
    409,
  );
});

test('declined, revoked and expired invitations move nowhere else', async () => {
  const declined = await invite('declines@example.com');
  const d = await call('/api/v1/invitations/decline', {
    method: 'POST',
    body: { token: tokenOf(declined.link) },
    token: null,
  });
  assert.equal(d.status, 200);
  assert.equal(d.body.status, 'declined');
  assert.equal(
    (
      await call('/api/v1/invitations/decline', {
        method: 'POST',
        body: { token: tokenOf(declined.link) },
        token: null,
      })
    ).status,
    409,
  );
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${declined.invite.id}/revoke`, { method: 'POST' })).status,
    409,
  );

  const revoked = await invite('revoked@example.com');
  const r = await api(`/organizations/${orgId}/invites/${revoked.invite.id}/revoke`, { method: 'POST' });
  assert.equal(r.body.status, 'revoked');
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${revoked.invite.id}/revoke`, { method: 'POST' })).status,
    409,
  );
  assert.equal(
    (await call('/api/v1/invitations/decline', { method: 'POST', body: { token: tokenOf(revoked.link) }, token: null }))
      .status,
    409,
  );
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${revoked.invite.id}/resend`, { method: 'POST' })).status,
    409,
  );

  const expiring = await invite('late@example.com');
  await server.runtime.db.query("UPDATE invites SET expires_at = now() - interval '1 second' WHERE id = $1", [
    expiring.invite.id,
  ]);
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${expiring.invite.id}`)).body.status,
    'expired',
    'expiry is enforced',
  );
  assert.equal(
    (
      await call('/api/v1/invitations/decline', {
        method: 'POST',
        body: { token: tokenOf(expiring.link) },
        token: null,
      })
    ).status,
    409,
  );
  assert.equal(
    (await api(`/organizations/${orgId}/invites/${expiring.invite.id}/resend`, { method: 'POST' })).status,
    409,
  );
  const again = await invite('late@example.com');
  assert.equal(again.invite.status, 'pending', 'an expired invitation leaves room for a new one');

  const listed = await api(`/organizations/${orgId}/invites?status=expired`);
  assert.deepEqual(
    listed.body.items.map((i: any) => i.id),
    [expiring.invite.id],
  );
  assert.equal((await api(`/organizations/${orgId}/invites?status=lost`)).status, 400);
});

test('resending re-issues the token and counts; the old link stops working', async () => {
  const first = await invite('mallory@example.com', 'viewer');
  const next = new Promise<{ to: string[]; text: string }>((resolve) => mailWaiters.push(resolve));
  const resent = await api(`/organizations/${orgId}/invites/${first.invite.id}/resend`, { method: 'POST' });
  assert.equal(resent.status, 200);
  assert.equal(resent.body.invite.resend_count, 1);
  assert.notEqual(tokenOf(resent.body.link), tokenOf(first.link));
  const mail = await next;
  assert.deepEqual(mail.to, ['mallory@example.com']);
  const mallorysToken = tokens.get(mallory.email)!;
  assert.equal(
    (
      await call('/api/v1/invitations/accept', {
        method: 'POST',
        body: { token: tokenOf(first.link) },
        token: mallorysToken,
      })
    ).status,
    404,
    'the old link',
  );
  const ok = await call('/api/v1/invitations/accept', {
    method: 'POST',
    body: { token: tokenOf(resent.body.link) },
    token: mallorysToken,
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.invite.resend_count, 1);
});

test('an unverified email cannot accept, even when it matches', async () => {
  const made = await api('/principals', {
    method: 'POST',
    body: {
      type: 'human',
      email: 'unverified@example.com',
      password: 'unverified long password',
      email_verified: false,
    },
  });
  assert.equal(made.status, 201);
  const token = await tokenFor({ email: 'unverified@example.com', password: 'unverified long password' });
  const issued = await invite('unverified@example.com');
  assert.equal(
    (await call('/api/v1/invitations/accept', { method: 'POST', body: { token: tokenOf(issued.link) }, token })).status,
    403,
  );
});

test('in Chromium with a French browser: the invitation, its answer and its states in French, accessible; English stays English', async () => {
  const issued = await invite('elise@example.com', 'viewer');
  const english = await fetch(issued.link, { headers: { 'accept-language': 'en-US,en;q=0.9' } });
  assert.match(await english.text(), /<html lang="en">[\s\S]*<h1>Join Analytical Engines<\/h1>/);
  const browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await frenchContext(browser);
    const page = await context.newPage();
    const res = await page.goto(issued.link);
    assert.match(res?.headers().vary ?? '', /accept-language/i);
    await page.getByRole('heading', { level: 1, name: 'Rejoindre Analytical Engines' }).waitFor();
    assert.equal(await page.title(), 'Invitation à rejoindre Analytical Engines');
    assert.match(
      (await page.locator('main').innerText()).replace(/\s+/g, ' '),
      /inviter@example\.com vous invite à rejoindre Analytical Engines en tant que viewer\./,
    );
    await page.getByRole('link', { name: 'connectez-vous en tant que elise@example.com' }).waitFor();
    await checkFrenchPage(page, 'French invitation page');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Refuser' }).click()]);
    await page.getByRole('heading', { level: 1, name: 'Invitation refusée' }).waitFor();
    assert.equal(
      await page.getByRole('status').textContent(),
      'Vous avez refusé l’invitation à rejoindre Analytical Engines.',
    );
    await checkFrenchPage(page, 'French invitation declined page');
    await page.goto(issued.link);
    await page.getByText(fr.invites.declined).waitFor();
    await page.getByText('Organisation\u00a0: Analytical Engines').waitFor();
    await checkFrenchPage(page, 'French declined invitation state page');
    const missing = await page.goto(`${server.issuer}/invites/accept?token=inv_nothing`);
    assert.equal(missing?.status(), 404);
    await page.getByRole('heading', { level: 1, name: fr.invites.notFoundTitle }).waitFor();
    await checkFrenchPage(page, 'French invitation not found page');
    await context.close();
  } finally {
    await browser.close();
  }
  const refused = await fetch(`${server.issuer}/invites/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr' },
    body: `token=${encodeURIComponent(tokenOf(issued.link))}&csrf=forged&decision=accept`,
  });
  assert.equal(refused.status, 403);
  assert.match(
    await refused.text(),
    /<html lang="fr">[\s\S]*Demande refusée[\s\S]*Ouvrez à nouveau le lien d’invitation\./,
  );
});
