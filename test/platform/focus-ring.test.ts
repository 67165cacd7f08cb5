import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { renderHtmlReport } from '../../src/audit/report/render.ts';
import { startDashboard, type DashboardServer } from '../dashboard/harness.ts';
import { startServer, type Server } from '../identity/support.ts';
import { sampleResult } from '../audit/fixtures/sample-result.ts';
import { assertFocusRing } from '../support/focus-ring.ts';

/**
 * The keyboard's focus ring on every service's pages, in the light and the dark scheme: WCAG 2.2's focus appearance,
 * and never the colour the page uses for errors (a focused field must not look like a wrong one).
 */
describe('the focus ring, light and dark', () => {
  let browser: Browser;
  let dashboard: DashboardServer;
  let identity: Server;
  const contexts: BrowserContext[] = [];

  before(async () => {
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
    dashboard = await startDashboard('focusring');
    identity = await startServer('focusring');
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await dashboard?.close();
    await identity?.close();
  });

  const open = async (colorScheme: 'light' | 'dark') => {
    const context = await browser.newContext({ colorScheme, reducedMotion: 'reduce' });
    contexts.push(context);
    return context.newPage();
  };

  for (const scheme of ['light', 'dark'] as const) {
    test(`the dashboard's web app, ${scheme}: a focused field`, async () => {
      const page = await open(scheme);
      await page.goto(dashboard.url);
      await page.getByRole('heading', { level: 1, name: 'Welcome: create the first owner' }).waitFor();
      await assertFocusRing(page, page.getByLabel('Organisation name'), { className: 'error' }, `dashboard-${scheme}`);
    });

    test(`identity's sign-in page, ${scheme}: a focused field`, async () => {
      const page = await open(scheme);
      await page.goto(`${identity.issuer}/signin`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await assertFocusRing(page, page.getByLabel('Email address'), { className: 'error' }, `identity-${scheme}`);
    });

    test(`the audit report, ${scheme}: a focused link`, async () => {
      const page = await open(scheme);
      await page.setContent(renderHtmlReport(sampleResult()));
      // The report's errors are its failures: --fail is the colour it marks them with.
      await assertFocusRing(
        page,
        page.getByRole('navigation').getByRole('link').first(),
        { color: 'var(--fail)' },
        `audit-report-${scheme}`,
      );
    });
  }
});
