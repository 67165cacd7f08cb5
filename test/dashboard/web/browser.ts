import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

const ARTIFACTS = new URL('../../../test-artifacts/dashboard-web/', import.meta.url);

export { assertAccessible } from '../../support/axe.ts';

/**
 * A screenshot under test-artifacts/dashboard-web/ (gitignored), for a person to look at: the full page, or with
 * `fullPage: false` what the viewport shows (the part of a long page scrolled to).
 */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage });
}

/** What a page needs to be signed in: the token pair the harness's signIn made. */
export interface SessionPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/**
 * Pages for a file's tests, each in a context of its own (reduced motion, 1280×900, downloads accepted), signed in as
 * `who` through the app's stored session, or a visitor with none; `closeAll` in afterEach closes them.
 */
export function pageOpener(browser: () => Browser) {
  let contexts: BrowserContext[] = [];
  return {
    open: async (who: SessionPair | undefined, options: BrowserContextOptions = {}): Promise<Page> => {
      const context = await browser().newContext({
        reducedMotion: 'reduce',
        viewport: { width: 1280, height: 900 },
        acceptDownloads: true,
        ...options,
      });
      contexts.push(context);
      if (who) {
        const pair = {
          accessToken: who.accessToken,
          refreshToken: who.refreshToken,
          expiresIn: who.expiresIn,
          tokenType: 'Bearer',
        };
        await context.addInitScript((p) => localStorage.setItem('dashboard.session', p), JSON.stringify(pair));
      }
      return context.newPage();
    },
    closeAll: async () => {
      const open = contexts;
      contexts = [];
      await Promise.all(open.map((c) => c.close()));
    },
  };
}
