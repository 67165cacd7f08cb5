import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { createHumanWithSetupLink } from '../../src/identity/password-links/store.ts';
import { startServer, type Server } from './support.ts';
import { assertAccessible, focused, focusSettles, screenshot } from './a11y.ts';
import { signInOnPage } from './account-support.ts';

/**
 * Identity's pages when the browser prefers dark (src/identity/web/layout.ts): a few representative pages, each with
 * axe at WCAG 2.2 AA (colour contrast included) and the keyboard's focus ring. The light runs are in each page's own test.
 */
let server: Server;
let browser: Browser;
const kim = { email: 'kim@example.com', password: 'kim has a long password' };

before(async () => {
  server = await startServer('iddark');
  await server.createHuman(kim.email, kim.password);
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const style = (page: Page, selector: string, property: string) =>
  page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`,
  ) as Promise<string>;

/** The page is dark (not the light palette left as it was), passes axe, and shows the dark focus ring on `Tab`. */
async function checkDark(page: Page, what: string, shot: string): Promise<void> {
  assert.equal(await style(page, 'body', 'backgroundColor'), 'rgb(19, 19, 20)', `${what}: the dark background`);
  assert.equal(await style(page, 'main', 'color'), 'rgb(232, 234, 237)', `${what}: light text`);
  await assertAccessible(page, `${what}, dark`);
  await screenshot(page, `dark-${shot}`);
}

test('sign-in, account pages, the choose-password page and an error page in the dark: axe passes, focus shows', async () => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();

  await page.goto(`${server.issuer}/signin?return_to=/account/password`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await checkDark(page, 'sign-in page', 'signin');
  // A wrong password: the announced error in the dark palette.
  await page.getByLabel('Email address').fill(kim.email);
  await page.getByLabel('Password').fill('not the password at all');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  assert.match((await page.getByRole('alert').textContent())!, /^The email address or the password is not correct\.$/);
  assert.equal(await style(page, '.error', 'color'), 'rgb(242, 184, 181)');
  await checkDark(page, 'sign-in page with an error', 'signin-error');
  assert.equal(await focused(page), 'password', 'the field to fix');
  await page.keyboard.press('Shift+Tab');
  await focusSettles(page, 'email');
  assert.equal(await style(page, '#email', 'outlineColor'), 'rgb(253, 214, 99)', 'the dark focus ring');
  assert.equal(await style(page, '#email', 'outlineWidth'), '3px');
  await screenshot(page, 'dark-signin-focus');

  await signInOnPage(page, kim);
  await page.getByRole('heading', { level: 1, name: 'Change your password' }).waitFor();
  await checkDark(page, 'change-password page', 'account-password');
  for (const path of ['/account/security', '/account/sessions']) {
    await page.goto(`${server.issuer}${path}`);
    await checkDark(page, path, path.slice(1).replace('/', '-'));
  }
  // The primary button's dark text on its light blue.
  await page.goto(`${server.issuer}/account/password`);
  assert.equal(await style(page, 'button.primary', 'color'), 'rgb(6, 46, 111)');
  await context.close();

  const made = await createHumanWithSetupLink(server.runtime.db, {
    email: 'lea@example.com',
    name: 'Lea',
    ttlSeconds: 3600,
  });
  assert.equal(made.status, 'created');
  const fresh = await browser.newContext({ colorScheme: 'dark' });
  const linkPage = await fresh.newPage();
  await linkPage.goto(`${server.issuer}/account/choose-password?token=${(made as { token: string }).token}`);
  await linkPage.getByLabel('New password', { exact: true }).fill('short');
  await linkPage.getByLabel('The new password again').fill('short');
  await linkPage.getByRole('button', { name: 'Set password' }).click();
  await linkPage.getByRole('alert').waitFor();
  await checkDark(linkPage, 'choose-password page with an error', 'choose-password-error');
  await linkPage.goto(`${server.issuer}/account/choose-password?token=${'x'.repeat(43)}`);
  assert.equal(await linkPage.locator('h1').textContent(), 'Link not found');
  await checkDark(linkPage, 'an error page', 'link-not-found');
  await fresh.close();
});
