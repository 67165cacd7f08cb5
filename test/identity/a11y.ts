import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

const ARTIFACTS = new URL('../../test-artifacts/identity/', import.meta.url);

export { assertAccessible } from '../support/axe.ts';

/** A full-page screenshot under test-artifacts/identity/ (gitignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

/** The id (or text, for a button) of the focused element. */
/**
 * Waits until focus is on the element with this id or text: `autofocus` is applied after the page is drawn, so the
 * first look can come before it. Fails with what has focus when it never gets there.
 */
export async function focusSettles(page: Page, expected: string): Promise<void> {
  const arrived = await page
    .waitForFunction(
      (want) => {
        const el = document.activeElement;
        return el !== null && (el.id || el.textContent) === want;
      },
      expected,
      { timeout: 5000 },
    )
    .then(
      () => true,
      () => false,
    );
  if (!arrived) assert.equal(await focused(page), expected);
}

export async function focused(page: Page): Promise<string | null> {
  return page.evaluate(
    'document.activeElement ? (document.activeElement.id || document.activeElement.textContent) : null',
  ) as Promise<string | null>;
}
