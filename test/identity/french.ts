import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible } from './a11y.ts';

/** A French browser as the i18n tests use it: French locale and Accept-Language, 320 px wide. */
export function frenchContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 320, height: 800 },
    locale: 'fr-FR',
    extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' },
  });
}

/** A page shown in French: `lang="fr"`, axe at zero violations light and dark, no sideways scrolling at 320 px. */
export async function checkFrenchPage(page: Page, what: string): Promise<void> {
  assert.equal(await page.getAttribute('html', 'lang'), 'fr', what);
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}
