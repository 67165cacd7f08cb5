import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import * as oauth from 'oauth4webapi';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { assertAccessible } from '../support/axe.ts';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { signInAt } from './account-support.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { agentsPage } from '../../src/identity/delegation/page.ts';
import { localized } from '../../src/identity/web/i18n/negotiate.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';

const ADMIN_TOKEN = 'agents-page-admin-token-0123456789abcdef';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const ARTIFACTS = new URL('../../test-artifacts/identity-agents/', import.meta.url);
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: Server;
let browser: Browser;
let as: oauth.AuthorizationServer;
let notes: { clientId: string; secret: string | undefined };
let runtime: { clientId: string; secret: string | undefined };
let resourceServer: { clientId: string; secret: string | undefined };
const robin = { email: 'robin@example.com', password: 'robin uses a long passphrase' };
let helper: { id: string; privateKey: CryptoKey };

async function api(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  const r = await fetch(`${server.issuer}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: (await r.json()) as any };
}

async function exchange(subject: string) {
  const actor = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'helper-key' })
    .setIssuer(helper.id)
    .setSubject(helper.id)
    .setAudience(server.issuer)
    .setExpirationTime('2m')
    .setJti(randomUUID())
    .sign(helper.privateKey);
  const client: oauth.Client = { client_id: runtime.clientId };
  const res = await oauth.genericTokenEndpointRequest(
    as,
    client,
    oauth.ClientSecretBasic(runtime.secret!),
    EXCHANGE,
    {
      subject_token: subject,
      subject_token_type: ACCESS,
      actor_token: actor,
      actor_token_type: JWT,
      scope: 'notes:read mail:send',
    },
    insecure,
  );
  return oauth.processGenericTokenEndpointResponse(as, client, res);
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (
      globalThis as unknown as { document: { activeElement: { id?: string; textContent?: string | null } | null } }
    ).document.activeElement;
    return { id: el?.id ?? '', text: el?.textContent ?? '' };
  });

before(async () => {
  server = await startServer('idagentspage', {
    IDENTITY_EXTRA_SCOPES: 'notes:read,mail:send',
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const robinId = await server.createHuman(robin.email, robin.password);
  await api(`/principals/${robinId}`, { allowed_scopes: ['openid', 'notes:read', 'mail:send'] }, 'PATCH');
  notes = await server.registerApp({
    name: 'Notes',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['notes:read', 'mail:send'],
  });
  runtime = await server.registerApp({
    name: 'Agent runtime',
    appType: 'machine',
    allowedScopes: ['notes:read', 'mail:send'],
  });
  resourceServer = await server.registerApp({
    name: 'Notes API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  const made = await api('/principals', {
    type: 'agent',
    name: 'inbox-helper',
    display_name: 'Inbox helper',
    model_id: 'acme-llm-4',
    version: '2026-10',
    allowed_scopes: ['notes:read', 'mail:send'],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.agent.requires_confirmation, true, 'confirmation is the default');
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  await api(`/principals/${made.body.id}/credentials`, {
    type: 'keypair',
    public_key: await exportSPKI(publicKey),
    key_algorithm: 'ES256',
    key_id: 'helper-key',
  });
  helper = { id: made.body.id, privateKey };
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('an unapproved agent is refused; the person signs in to /agents in Chromium, sees the request and approves it by keyboard', async () => {
  const client: oauth.Client = { client_id: notes.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: notes.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'notes:read mail:send',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, robin);
  const params = oauth.validateAuthResponse(as, client, new URL(callback), oauth.expectNoState);
  const subject = (
    await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(notes.secret!),
        params,
        CALLBACK,
        verifier,
        insecure,
      ),
    )
  ).access_token;

  await assert.rejects(
    exchange(subject),
    (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'access_denied',
  );

  const context = await browser.newContext();
  const page = await context.newPage();
  // Signed out, /agents goes through the one sign-in of the account pages (/signin?return_to=/agents) and back.
  await page.goto(`${server.issuer}/agents`);
  assert.equal(await page.locator('h1').textContent(), 'Sign in');
  assert.match(page.url(), /\/interaction\//, 'the normal sign-in page of an authorization request');
  await assertAccessible(page, 'agents sign-in');
  assert.equal((await focused(page)).id, 'email');
  await page.keyboard.type(robin.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(robin.password);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${server.issuer}/agents`);
  await page.getByRole('heading', { level: 1, name: 'Agents acting for you' }).waitFor();
  assert.equal(await page.title(), 'Agents (1 waiting)');
  const request = page.getByRole('region', { name: 'Inbox helper' });
  assert.match((await request.textContent()) ?? '', /acme-llm-4 \(version 2026-10\)/, 'the model is shown');
  const asks = await request.locator('ul.scopes li').allTextContents();
  assert.deepEqual(
    asks.map((s) => /\((.+)\)$/.exec(s)?.[1]),
    ['notes:read', 'mail:send'],
    'the scopes it asks for',
  );
  await assertAccessible(page, 'agents page with a pending request');
  await shot(page, 'pending');

  // Keyboard only: the first control after the page's text is the Approve button, then Deny.
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).text, 'Approve Inbox helper');
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).text, 'Deny Inbox helper');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(/done=approve/);
  assert.equal(await page.getByRole('status').textContent(), 'The agent was approved.');
  assert.equal(await page.title(), 'Agents');
  await assertAccessible(page, 'agents page after approval');
  await shot(page, 'approved');

  const issued = await exchange(subject);
  assert.equal(issued.scope, 'notes:read mail:send');
  const intro = await form(
    `${server.issuer}/oauth/introspect`,
    { token: issued.access_token },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  );
  assert.deepEqual(intro.json.act, { sub: helper.id });

  // Revoking on the page ends the agent's token at once.
  await page.reload();
  assert.match((await page.getByRole('region', { name: 'Inbox helper' }).textContent()) ?? '', /1 live token/);
  await page.getByRole('button', { name: 'Revoke Inbox helper' }).click();
  await page.waitForURL(/done=revoke/);
  assert.equal(await page.getByRole('status').textContent(), 'The agent was revoked; its tokens no longer work.');
  const after = await form(
    `${server.issuer}/oauth/introspect`,
    { token: issued.access_token },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  );
  assert.equal(after.json.active, false);
  await context.close();
});

test('the decision form refuses a missing CSRF token, another site, and a signed-out browser', async () => {
  const b = new TestBrowser();
  const signedOut = await b.request(`${server.issuer}/agents/${helper.id}/decision`, {
    form: { decision: 'approve', csrf: 'x' },
  });
  assert.equal(signedOut.status, 401);
  const signedIn = await signInAt(server.issuer, b, '/agents', robin);
  assert.equal(signedIn.url, `${server.issuer}/agents`);
  assert.match(signedIn.html, /Agents acting for you/);
  const forged = await b.request(`${server.issuer}/agents/${helper.id}/decision`, {
    form: { decision: 'approve', csrf: 'forged' },
  });
  assert.equal(forged.status, 403);
  const crossSite = await b.request(`${server.issuer}/agents/${helper.id}/decision`, {
    form: { decision: 'approve', csrf: 'forged' },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  const notUuid = await b.request(`${server.issuer}/agents/not-a-uuid/decision`, {
    form: { decision: 'approve', csrf: 'x' },
  });
  assert.equal(notUuid.status, 400);
});

test('in Chromium with a French browser: the agents page, its decisions and its refusals in French, accessible', async () => {
  const html = agentsPage({
    accountLabel: 'robin@example.com',
    csrf: 'c',
    notice: fr.agents.approved,
    loc: localized('fr-FR,fr;q=0.9'),
    agents: [
      {
        id: 'a1',
        name: 'Inbox helper',
        modelId: 'acme-llm-4',
        version: '2026-10',
        status: 'pending',
        scopes: ['notes:read'],
        pendingScopes: ['mail:send'],
        liveTokens: 0,
        approvedAt: null,
      },
      {
        id: 'a2',
        name: 'Planner',
        modelId: 'acme-llm-3',
        version: null,
        status: 'approved',
        scopes: ['notes:read'],
        pendingScopes: [],
        liveTokens: 2,
        approvedAt: '2026-11-20T10:00:00Z',
      },
    ],
  });
  assert.match(html, /<title>Agents \(1\u00a0en attente\)<\/title>/);
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.setContent(html);
  await page.getByRole('heading', { level: 1, name: 'Agents qui agissent pour vous' }).waitFor();
  await page.getByRole('button', { name: 'Approuver Inbox helper' }).waitFor();
  await page.getByRole('button', { name: 'Refuser Inbox helper' }).waitFor();
  await page.getByRole('button', { name: 'Révoquer Planner' }).waitFor();
  assert.equal(await page.getByRole('status').textContent(), 'L’agent a été approuvé.');
  const pending = page.locator('section[aria-labelledby="pending-a1"]');
  assert.match((await pending.textContent()) ?? '', /Modèle\u00a0: acme-llm-4 \(version 2026-10\)/);
  assert.match((await pending.textContent()) ?? '', /Inbox helper demande à agir pour vous et à\u00a0:/);
  assert.match((await pending.textContent()) ?? '', /Utiliser la permission «\u00a0mail:send\u00a0» \(mail:send\)/);
  assert.match(
    (await page.getByRole('region', { name: 'Planner' }).textContent()) ?? '',
    /2\u00a0jetons actifs\u00a0; approuvé le 2026-11-20\./,
  );
  await checkFrenchPage(page, 'French agents page with a request and an approval');

  // The served page: signed out, the sign-in is French too, then the page and its notices.
  await page.goto(`${server.issuer}/agents`);
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill(robin.email);
  await page.getByLabel('Mot de passe').fill(robin.password);
  await Promise.all([
    page.waitForURL(`${server.issuer}/agents`),
    page.getByRole('button', { name: 'Se connecter' }).click(),
  ]);
  const res = await page.reload();
  assert.match(res?.headers().vary ?? '', /accept-language/i);
  await page.getByRole('heading', { level: 1, name: 'Agents qui agissent pour vous' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'En attente de votre approbation' }).waitFor();
  await page.getByRole('navigation', { name: 'Votre compte' }).waitFor();
  await checkFrenchPage(page, 'French agents page');
  await page.goto(`${server.issuer}/agents?done=revoke`);
  assert.equal(await page.getByRole('status').textContent(), fr.agents.revoked);
  await context.close();

  // Signed out, a decision is refused with a page in the browser's language.
  const signedOut = await fetch(`${server.issuer}/agents/${helper.id}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr' },
    body: 'decision=approve&csrf=x',
  });
  assert.equal(signedOut.status, 401);
  assert.match(signedOut.headers.get('vary') ?? '', /accept-language/i);
  assert.match(await signedOut.text(), /<html lang="fr">[\s\S]*<h1>Déconnecté<\/h1>[\s\S]*Se reconnecter/);
});
