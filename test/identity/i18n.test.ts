import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { pickLanguage } from '../../src/identity/web/i18n/negotiate.ts';
import { en } from '../../src/identity/web/i18n/en.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';
import { localized } from '../../src/identity/web/i18n/negotiate.ts';
import { secondFactorPage } from '../../src/identity/mfa/templates.ts';
import { passwordChangedPage } from '../../src/identity/account/templates.ts';
import { secondFactorNeededPage } from '../../src/identity/mfa/interaction.ts';
import { startServer, type Server } from './support.ts';
import { screenshot } from './a11y.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { authorizeUrl, callbackServer } from './mfa-support.ts';

/** The sign-in, forgot-password, consent and sign-out pages in English or French, chosen from Accept-Language (web/i18n/). */

let server: Server;
let browser: Browser;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let app: { id: string; clientId: string };

before(async () => {
  callback = await callbackServer();
  server = await startServer('idi18n');
  await server.createHuman('lea@example.com', 'lea has a long password');
  app = await server.registerApp({ name: 'Carnet', appType: 'web', redirectUris: [callback.url] });
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  callback?.close();
});

test('Accept-Language: the highest q-value among English and French, by primary tag; English otherwise', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['fr', 'fr'],
    ['fr-CA,fr;q=0.9,en;q=0.8', 'fr'],
    ['en-GB,en;q=0.9,fr;q=0.8', 'en'],
    ['de-DE,de;q=0.9,fr;q=0.5,en;q=0.3', 'fr'],
    ['en;q=0.5, fr;q=0.9', 'fr'],
    ['FR', 'fr'],
    ['fr;q=0', 'en'],
    ['fr;q=0, *;q=0.1', 'en'],
    ['de, *;q=0.5', 'en'],
    ['fr;q=abc', 'en'],
    ['fr;q=2', 'en'],
    [';;;,,,=', 'en'],
    ['de', 'en'],
  ];
  for (const [header, lang] of cases) assert.equal(pickLanguage(header), lang, String(header));
});

test('the French catalogue has every key of the English one, each a text', () => {
  const shape = (o: object): string[] =>
    Object.entries(o).flatMap(([k, v]) =>
      typeof v === 'object' && v !== null ? shape(v).map((s) => `${k}.${s}`) : [`${k}:${typeof v}`],
    );
  assert.deepEqual(shape(fr), shape(en));
});

test('the sign-out page answers in the language asked, with Vary: Accept-Language; a malformed header is English', async () => {
  const get = (acceptLanguage: string) =>
    fetch(new URL('/signout', server.issuer), { headers: { 'accept-language': acceptLanguage } });
  const french = await get('fr-FR,fr;q=0.9,en;q=0.5');
  assert.equal(french.status, 200);
  assert.match(french.headers.get('vary') ?? '', /accept-language/i);
  const body = await french.text();
  assert.match(body, /<html lang="fr">/);
  assert.match(body, /<h1>Déconnecté<\/h1>/);
  const odd = await get('fr;q=9, \u00e9t\u00e9;;;q=');
  assert.equal(odd.status, 200);
  assert.match(await odd.text(), /<html lang="en">[\s\S]*<h1>Signed out<\/h1>/);
});

const checkPage = checkFrenchPage;

test('in Chromium with a French browser: sign-in, forgot password, consent and sign-out in French, accessible light and dark at 320 px', async () => {
  const context = await browser.newContext({
    viewport: { width: 320, height: 800 },
    locale: 'fr-FR',
    extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' },
  });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, app.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  assert.equal(await page.title(), 'Connexion');
  await checkPage(page, 'French sign-in page');
  await screenshot(page, 'sign-in-fr');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: /^Mot de passe oublié\s\?$/ }).click()]);
  await page.getByRole('heading', { level: 1, name: /^Mot de passe oublié\s\?$/ }).waitFor();
  await checkPage(page, 'French forgot-password page');
  await page.getByLabel('Adresse e-mail').fill('nobody@example.com');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Envoyer le lien' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Consultez vos e-mails' }).waitFor();
  await checkPage(page, 'French link-requested page');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Retour à la connexion' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill('lea@example.com');
  await page.getByLabel('Mot de passe').fill('lea has a long password');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Se connecter' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Autoriser Carnet à accéder à votre compte ?' }).waitFor();
  await page.getByRole('button', { name: 'Refuser' }).waitFor();
  await checkPage(page, 'French consent page');
  await screenshot(page, 'consent-fr');
  await page.goto(new URL('/signout', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Déconnexion' }).waitFor();
  await page.getByRole('navigation', { name: 'Votre compte' }).waitFor();
  await checkPage(page, 'French sign-out page');
  await context.close();
});

test('in Chromium with an English browser: the same pages stay English', async () => {
  const context = await browser.newContext({
    viewport: { width: 320, height: 800 },
    extraHTTPHeaders: { 'accept-language': 'en-US,en;q=0.9,fr;q=0.3' },
  });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, app.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  await context.close();
});

test('in Chromium: the second-step page in French, accessible light and dark at 320 px', async () => {
  const html = secondFactorPage({
    action: '/interaction/x/mfa',
    csrf: 'c',
    totp: true,
    accountLabel: 'lea@example.com',
    error: 'Code incorrect.',
    loc: localized('fr-BE,fr;q=0.9'),
  });
  assert.match(html, /<html lang="fr">/);
  assert.match(html, /<title>Erreur\u00a0: Vérification en deux étapes<\/title>/);
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.setContent(html);
  await page.getByRole('heading', { level: 1, name: /^Vérification en deux étapes$/ }).waitFor();
  await page.getByLabel('Code de vérification').waitFor();
  await page.getByRole('button', { name: 'Vérifier' }).waitFor();
  await checkPage(page, 'French second-step page');
  await context.close();
});

test('in Chromium with a French browser: a wrong password says so in French; the account pages are French and accessible', async () => {
  const context = await browser.newContext({
    viewport: { width: 320, height: 800 },
    locale: 'fr-FR',
    extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' },
  });
  const page = await context.newPage();
  await page.goto(new URL('/signin?return_to=/account/security', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill('lea@example.com');
  await page.getByLabel('Mot de passe').fill('not the password at all');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Se connecter' }).click()]);
  assert.equal(await page.getByRole('alert').textContent(), fr.signIn.wrongPassword);
  assert.equal(await page.title(), 'Erreur\u00a0: Connexion');
  await checkPage(page, 'French sign-in page with an error');
  await page.getByLabel('Mot de passe').fill('lea has a long password');
  await Promise.all([
    page.waitForURL(new URL('/account/security', server.issuer).href),
    page.getByRole('button', { name: 'Se connecter' }).click(),
  ]);
  await page.getByRole('heading', { level: 1, name: 'Sécurité de connexion' }).waitFor();
  await page.getByRole('link', { name: 'Configurer une application d’authentification' }).waitFor();
  await page.getByRole('button', { name: 'Ajouter une clé d’accès' }).waitFor();
  await page.getByRole('navigation', { name: 'Votre compte' }).waitFor();
  await checkPage(page, 'French account security page');
  await screenshot(page, 'security-fr');
  await page.goto(new URL('/account/password', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Changer votre mot de passe' }).waitFor();
  await page.getByLabel('Mot de passe actuel', { exact: true }).fill('not the password at all');
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('a brand new long password');
  await page.getByLabel('Confirmez le nouveau mot de passe').fill('a brand new long password');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Changer le mot de passe' }).click()]);
  assert.equal(await page.getByRole('alert').textContent(), fr.password.wrongCurrent);
  await checkPage(page, 'French change-password page with an error');
  await page.goto(new URL('/account/sessions', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
  await page.getByText('Ce navigateur', { exact: true }).waitFor();
  await page.getByRole('link', { name: 'Se déconnecter de ce navigateur' }).waitFor();
  await checkPage(page, 'French sessions page');
  await page.goto(new URL('/account/apps', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Applications connectées' }).waitFor();
  await page.getByText(fr.apps.none).waitFor();
  await checkPage(page, 'French connected apps page');
  await page.goto(new URL('/account/linked', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Comptes liés' }).waitFor();
  await page.getByText(fr.linked.none).waitFor();
  await checkPage(page, 'French linked accounts page');
  await page.goto(new URL('/account/linked?done=unlinked', server.issuer).href);
  assert.equal(await page.getByRole('status').textContent(), fr.linked.unlinkedNotice);
  await page.goto(new URL('/account/email', server.issuer).href);
  await page.getByRole('heading', { level: 1, name: 'Adresse e-mail' }).waitFor();
  await checkPage(page, 'French email page');
  await context.close();
});

test('the second step’s error messages and the sign-in throttling message have French words', () => {
  assert.equal(en.signIn.throttled(1), 'Too many failed sign-in attempts. Wait 1 second and try again.');
  assert.equal(
    fr.signIn.throttled(30),
    'Trop de tentatives de connexion échouées. Attendez 30\u00a0secondes et réessayez.',
  );
  assert.equal(en.secondStep.throttled(2), 'Too many wrong codes. Wait 2 seconds and try again.');
  assert.match(fr.secondStep.wrongCode, /^Le code est incorrect\./);
});

test('in Chromium with a French browser: the provider’s own pages and the handlers’ refusals in French, accessible; English stays English', async () => {
  const context = await frenchContext(browser);
  const page = await context.newPage();
  const failed = await page.goto(
    `${server.issuer}/oauth/authorize?client_id=no-such-app&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(callback.url)}`,
  );
  assert.equal(failed?.status(), 400);
  assert.match(failed?.headers().vary ?? '', /accept-language/i);
  await page.getByRole('heading', { level: 1, name: 'Échec de la demande de connexion' }).waitFor();
  assert.match((await page.getByRole('alert').textContent())!, /^invalid_client\u00a0: /);
  await page.getByText(fr.provider.tryAgain).waitFor();
  await checkPage(page, 'French provider error page');

  // The provider asks to confirm a sign-out only when the browser is signed in.
  await page.goto(new URL('/signin?return_to=/account/sessions', server.issuer).href);
  await page.getByLabel('Adresse e-mail').fill('lea@example.com');
  await page.getByLabel('Mot de passe').fill('lea has a long password');
  await Promise.all([
    page.waitForURL(new URL('/account/sessions', server.issuer).href),
    page.getByRole('button', { name: 'Se connecter' }).click(),
  ]);
  await page.goto(`${server.issuer}/oauth/logout`);
  await page.getByRole('heading', { level: 1, name: 'Déconnexion' }).waitFor();
  await page.getByText(/^Voulez-vous vous déconnecter de [^ ]+\u00a0\?$/).waitFor();
  await page.getByRole('button', { name: 'Rester connecté' }).waitFor();
  await checkPage(page, 'French provider logout page');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Se déconnecter' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Déconnecté' }).waitFor();
  await checkPage(page, 'French provider signed-out page');

  const expired = await page.goto(`${server.issuer}/interaction/no-such-request`);
  assert.equal(expired?.status(), 400);
  await page.getByRole('heading', { level: 1, name: fr.errors.requestExpiredTitle }).waitFor();
  await checkPage(page, 'French expired sign-in request page');

  await page.goto(`${server.issuer}/account/forgot-password`);
  await page.getByRole('heading', { level: 1, name: /^Mot de passe oublié\s\?$/ }).waitFor();
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Envoyer le lien' }).click()]);
  assert.equal(await page.getByRole('alert').textContent(), fr.errors.enterEmail);
  await checkPage(page, 'French forgot-password page with an error');
  await context.close();

  const refused = await fetch(new URL('/signout', server.issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-CA' },
    body: 'csrf=forged',
  });
  assert.equal(refused.status, 403);
  assert.match(refused.headers.get('vary') ?? '', /accept-language/i);
  assert.match(await refused.text(), /<html lang="fr">[\s\S]*<h1>Demande refusée<\/h1>[\s\S]*Ce formulaire a expiré/);
  const english = await fetch(
    `${server.issuer}/oauth/authorize?client_id=no-such-app&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(callback.url)}`,
    { headers: { 'accept-language': 'en-GB' } },
  );
  assert.match(
    await english.text(),
    /<html lang="en">[\s\S]*<h1>Sign-in request failed<\/h1>[\s\S]*invalid_client<\/strong>: /,
  );
});

test('in Chromium: the password-changed and second-factor-needed pages in French, accessible', async () => {
  const loc = localized('fr');
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.setContent(passwordChangedPage('lea@example.com', loc));
  await page.getByRole('heading', { level: 1, name: 'Mot de passe changé' }).waitFor();
  assert.equal(
    await page.getByRole('status').textContent(),
    'Le mot de passe de lea@example.com a été changé. Vos autres navigateurs ont été déconnectés.',
  );
  await checkPage(page, 'French password changed page');
  await page.setContent(secondFactorNeededPage(server.issuer, loc));
  await page.getByRole('heading', { level: 1, name: 'Un deuxième facteur est nécessaire' }).waitFor();
  await page.getByRole('link', { name: fr.totp.neededLink }).waitFor();
  await checkPage(page, 'French second-factor-needed page');
  await context.close();
});
