import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertAccessible } from './axe.ts';
import type { LinkedPlatform } from './linked-platform.ts';

/**
 * What the console's Chromium tests share (test/dashboard/web-console-*.test.ts): the platform's first owner made at
 * the dashboard's first run, pages that report every script error, CSP violation and dialog, the one sign-in, a caller
 * of identity's management API, and screenshots under test-artifacts/console/.
 */
export const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url);
export const OWNER = { email: 'olga@acme.example', name: 'Olga Owner', password: 'a long enough passphrase' };
export const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>';
export const HOSTILE_URL = 'javascript:window.__pwned=2';

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

/** The dashboard's first run: the tenant Acme and its owner, who holds every console right at identity. */
export async function makeOwner(p: LinkedPlatform): Promise<void> {
  const setup = await fetch(`${p.url.dashboard}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      tenantName: 'Acme',
      tenantSlug: 'acme',
      email: OWNER.email,
      name: OWNER.name,
      password: OWNER.password,
      passwordConfirmation: OWNER.password,
    }),
  });
  assert.equal(setup.status, 201, await setup.text());
}

/** identity's management API with IDENTITY_ADMIN_TOKEN: the status and the JSON body (none for a 204). */
export function identityCaller(p: () => LinkedPlatform, adminToken: string) {
  return async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const r = await fetch(`${p().url.identity}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    return { status: r.status, body: r.status === 204 ? undefined : ((await r.json()) as any) };
  };
}

/** A page in a fresh context that reports script errors, CSP violations and dialogs into `problems` (none may happen). */
export async function openPage(
  browser: Browser,
  problems: string[],
  options: { viewport?: { width: number; height: number }; clipboardOrigin?: string } = {},
): Promise<Page> {
  const context = await browser.newContext({
    reducedMotion: 'reduce',
    viewport: options.viewport ?? { width: 1280, height: 900 },
  });
  if (options.clipboardOrigin)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.clipboardOrigin });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && !/401|403|404|Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('dialog', (d) => {
    problems.push(`a dialog opened: ${d.message()}`);
    void d.dismiss();
  });
  return page;
}

/** The dashboard's sign-in through identity's page; the console then signs in at identity by itself. */
export async function signIn(
  page: Page,
  p: LinkedPlatform,
  who: { email: string; password: string; name: string } = OWNER,
): Promise<void> {
  await page.goto(p.url.dashboard!);
  await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
  await page.getByLabel('Email address').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: `Welcome, ${who.name}` }).waitFor();
  await page.waitForFunction(() => localStorage.getItem('console.session') !== null);
  await page.getByRole('heading', { level: 1, name: `Welcome, ${who.name}` }).waitFor();
}

/**
 * Opens a screen from the main navigation by its link's name: on a wide screen a section's links are behind its button
 * (app/Navigation.tsx), which is pressed first; with one section, or in the narrow Menu, the link is there to click.
 */
export async function openFromNav(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const link = nav.getByRole('link', { name, exact: true });
  // Right after a viewport change the navigation may still swap between its narrow and wide forms (useMedia), and the
  // new form starts closed: a section opened in the old one is gone. So open, click, and open again if it went.
  for (let tries = 0; tries < 4; tries++) {
    if (!(await link.isVisible())) {
      const list = await nav
        .locator('a')
        .filter({ hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
        .first()
        .evaluate((a) => a.closest('ul')?.id ?? '');
      const toggle = nav.locator(`button[aria-controls="${list}"]`);
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    }
    try {
      await link.click({ timeout: 5_000 });
      return;
    } catch {
      // The section closed under the click: look again.
    }
  }
  await link.click();
}

/** Nothing a hostile text carried ran: no flag set, no element made from a name. */
export async function assertNothingRan(page: Page): Promise<void> {
  assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
  assert.equal(await page.locator('main img, main script').count(), 0, 'no element came from a name');
  assert.equal(await page.locator('a[href^="javascript"]').count(), 0, 'no javascript: link');
}

/**
 * The words broken across lines inside tables that scroll in their own region (app/WideTable.tsx): such a table may
 * be as wide as its words, so breaking one (an id, a URL, a name, letter by letter) only made a column thinner and its
 * rows taller. A word here is a run of letters and digits: a line may end at anything else (a space, a hyphen, a slash).
 */
export function brokenWordsInTables(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    for (const cell of document.querySelectorAll('.table-wide td, .table-wide th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n && found.length < 5; n = walker.nextNode()) {
        for (const m of (n.textContent ?? '').matchAll(/[\\p{L}\\p{N}]+/gu)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.bottom)));
          if (lines.size > 1) found.push(m[0]);
        }
      }
    }
    return found;
  })()`);
}

/**
 * The visible captions of scrolling tables that run past a 320 px screen's right edge: a table's name is read before
 * its region is scrolled, so it must wrap within the screen.
 */
export function captionsPastTheEdge(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('.table-wide caption:not(.visually-hidden)')]
    .filter((c) => c.getBoundingClientRect().width > 0 && c.getBoundingClientRect().right > 321)
    .map((c) => c.textContent)`);
}

/**
 * The text for screen readers alone (`.visually-hidden`) that takes room on the page: it is out of the flow (absolutely
 * positioned) unless another rule moved it back. A table's hidden caption made sticky at 320 px took a line above its
 * table.
 */
export function hiddenTextTakingRoom(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('.visually-hidden')]
    .filter((e) => !['absolute', 'fixed'].includes(getComputedStyle(e).position))
    .slice(0, 5)
    .map((e) => e.tagName.toLowerCase() + ': ' + (e.textContent ?? '').slice(0, 40))`);
}

/**
 * The pagers (`.pager`: Previous, the page, Next) whose controls are not on one line: at 320 px "Next page" wrapped
 * alone onto a line of its own, under the page number, where it read as a button of something else. Each is named
 * by its label and the lines it took.
 */
export function pagersBroken(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('.pager')]
    .filter((p) => p.getBoundingClientRect().width > 0)
    .map((p) => [p.getAttribute('aria-label') || p.textContent, new Set([...p.children]
      .filter((c) => c.getBoundingClientRect().height > 0)
      .map((c) => { const r = c.getBoundingClientRect(); return Math.round(r.top + r.height / 2); })).size])
    .filter(([, lines]) => lines > 1)
    .map(([name, lines]) => name + ': ' + lines + ' lines')`);
}

/**
 * The way back from a detail screen is a link above its heading, as on every such screen (the dashboard's "All
 * dashboards", Identity's "People"): named `name`, before the level-one heading and above it.
 */
export async function assertCrumbAboveHeading(page: Page, name: string): Promise<void> {
  const crumb = page.locator('main p.crumbs').getByRole('link', { name, exact: true });
  const heading = page.getByRole('heading', { level: 1 });
  await heading.waitFor();
  assert.equal(await crumb.count(), 1, `a link "${name}" above the heading`);
  const gap = await gapBetween(crumb, heading);
  assert.ok(gap >= 0, `the link "${name}" is above the heading (${gap} px)`);
}

/**
 * The right edges of a filter row's text fields and selects (`form`, a selector), rounded: on a phone each is as wide
 * as the screen, so they are all one edge.
 */
export function filterFieldEdges(page: Page, form: string): Promise<number[]> {
  return page.evaluate(
    `[...new Set([...document.querySelectorAll(${JSON.stringify(form)} + ' > .field > :is(input:not([type="checkbox"]), select)')]
      .map((e) => Math.round(e.getBoundingClientRect().right)))]`,
  );
}

/** The room between the bottom of `above` and the top of `below`, in pixels (negative: they overlap). */
export async function gapBetween(above: Locator, below: Locator): Promise<number> {
  const [a, b] = [await above.boundingBox(), await below.boundingBox()];
  assert.ok(a && b, 'both are shown');
  return b.y - (a.y + a.height);
}

/**
 * The tables scrolling sideways in their region (app/WideTable.tsx) that give no hint of it: each must take the focus
 * (axe's scrollable-region-focusable), have a name, say in its description that it scrolls, and show a shadow on each
 * edge that hides columns and on no other. Each problem is named with the region's name.
 */
export function scrollHintsMissing(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    for (const region of document.querySelectorAll('.table-wide')) {
      if (region.getBoundingClientRect().width === 0) continue;
      const name = region.getAttribute('aria-label') || '(no name)';
      const left = region.scrollLeft > 1;
      const right = region.scrollLeft + region.clientWidth < region.scrollWidth - 1;
      const frame = region.parentElement;
      const shadow = (side) => frame ? Number(getComputedStyle(frame, side).opacity) > 0 : false;
      if (!left && !right) {
        if (shadow('::before') || shadow('::after')) found.push(name + ': a shadow on a table that does not scroll');
        continue;
      }
      if (region.tabIndex !== 0) found.push(name + ': not focusable');
      if (!region.getAttribute('aria-label')) found.push(name + ': no name');
      const described = (region.getAttribute('aria-describedby') || '').split(' ').filter(Boolean)
        .map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
      if (!/scrolls sideways/i.test(described)) found.push(name + ': its description does not say it scrolls');
      if (shadow('::before') !== left) found.push(name + ': the left edge shadow ' + (left ? 'is missing' : 'shows with nothing there'));
      if (shadow('::after') !== right) found.push(name + ': the right edge shadow ' + (right ? 'is missing' : 'shows with nothing there'));
    }
    return found;
  })()`);
}

/**
 * Light and dark at 320 px: axe finds nothing, the page does not scroll sideways, no word in a table is broken
 * (brokenWordsInTables), no table's caption runs past the screen's edge, a table that scrolls sideways says so
 * (scrollHintsMissing) and text for screen readers takes no room (hiddenTextTakingRoom); a screenshot of each.
 */
export async function assertNarrowBothSchemes(page: Page, what: string, shot: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 320, height: 800 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await assertAccessible(page, `${what} at 320 px, ${scheme}`);
    // What sticks out, to name in the failure: elements, and text running out of its element.
    const wide = (await page.evaluate(`(() => {
      const found = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n && found.length < 5; n = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(n);
        if (range.getBoundingClientRect().right > 321 && !n.parentElement?.closest('.table-wide'))
          found.push(n.parentElement?.tagName.toLowerCase() + ': ' + (n.textContent ?? '').slice(0, 40));
      }
      return found;
    })()`)) as string[];
    assert.equal(
      await page.evaluate('document.documentElement.scrollWidth'),
      320,
      `${what}: no sideways scrolling (${wide.join(' | ')})`,
    );
    assert.deepEqual(await brokenWordsInTables(page), [], `${what}: no word in a table broken across lines`);
    assert.deepEqual(await captionsPastTheEdge(page), [], `${what}: a table's caption stays within the screen`);
    assert.deepEqual(await scrollHintsMissing(page), [], `${what}: a table that scrolls sideways says so`);
    assert.deepEqual(await hiddenTextTakingRoom(page), [], `${what}: text for screen readers takes no room`);
    assert.deepEqual(await pagersBroken(page), [], `${what}: a pager's controls are on one line`);
    await screenshot(page, `${shot}-320-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (size) await page.setViewportSize(size);
}

/**
 * The element that has the focus: its tag (lower case), id, text, `aria-label` (`name`), the one of those two a screen
 * reader says (`label`: the `aria-label` if it has one) and whether it is inside an open dialog.
 */
export function focused(
  page: Page,
): Promise<{ tag: string; id: string; text: string; name: string; label: string; inDialog: boolean }> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    const text = (el?.textContent ?? '').trim();
    const aria = el?.getAttribute('aria-label');
    return {
      tag: el ? el.tagName.toLowerCase() : '',
      id: el?.id ?? '',
      text,
      name: aria ?? '',
      label: (aria ?? text).trim(),
      inDialog: Boolean(el?.closest('dialog[open]')),
    };
  })()`);
}
