import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

const ARTIFACTS = new URL('../../../test-artifacts/dashboard-web/', import.meta.url);

export { assertAccessible } from '../../support/axe.ts';

/** A full-page screenshot under test-artifacts/dashboard-web/ (gitignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}
