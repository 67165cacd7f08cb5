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
export async function focused(page: Page): Promise<string | null> {
  return page.evaluate(
    'document.activeElement ? (document.activeElement.id || document.activeElement.textContent) : null',
  ) as Promise<string | null>;
}
