import type { Page } from 'playwright-core';
import { sha256Hex } from '../../kit/crypto.ts';
import type { PageTiming } from './page-audit.ts';

/** Waits for a loaded page to settle: network idle (with a cap), then a short delay. */
export async function settle(page: Page, timing: PageTiming): Promise<void> {
  if (timing.networkIdleMs > 0)
    await page.waitForLoadState('networkidle', { timeout: timing.networkIdleMs }).catch(() => {});
  if (timing.settleMs > 0) await page.waitForTimeout(timing.settleMs);
}

/**
 * The page's canonical URL and a digest of its document as it stands, to recognise the same page under another URL.
 * A page that cannot tell (it navigated away meanwhile) has neither, and is then never taken for another.
 */
export async function readIdentity(page: Page): Promise<{ canonical: string | null; fingerprint: string | null }> {
  const read = await page
    .evaluate(() => {
      // Runs in the page: `href` of a link element is already absolute; rel is a list of tokens, compared ignoring case.
      const doc = (
        globalThis as unknown as {
          document: {
            querySelector(s: string): { href?: unknown } | null;
            documentElement: { outerHTML: string } | null;
          };
        }
      ).document;
      const link = doc.querySelector('head link[rel~="canonical" i][href]');
      return {
        canonical: typeof link?.href === 'string' ? link.href : null,
        html: doc.documentElement?.outerHTML ?? null,
      };
    })
    .catch(() => ({ canonical: null, html: null }));
  return { canonical: read.canonical, fingerprint: read.html === null ? null : sha256Hex(read.html) };
}

/** A link of a page: its absolute address and its text (what tells a sign-out link whatever its address). */
export interface Link {
  url: string;
  text: string;
}

export async function collectLinks(page: Page): Promise<Link[]> {
  // Runs in the page: `href` of an anchor is already absolute; an area's text is its alt.
  return page.$$eval('a[href], area[href]', (elements) =>
    elements.flatMap((e) => {
      const el = e as unknown as { href: unknown; textContent: string | null; getAttribute(n: string): string | null };
      if (typeof el.href !== 'string') return [];
      const text = (el.textContent || el.getAttribute('aria-label') || el.getAttribute('alt') || '').slice(0, 200);
      return [{ url: el.href, text }];
    }),
  );
}
