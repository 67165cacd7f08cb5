import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible } from '../support/axe.ts';
import { startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { FAST_AUDITS, page as htmlPage, serveSite, type TestSite } from '../audit/support.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * A deep audit in the console (issue 29): the owner adds a site with "Deep audit (browser checks)" and best-practice
 * rules, runs it, and reads its report: the keyboard trap with its screenshot, the focus-order question a person must
 * answer and how to check it, the passed checks folded away, and the best-practice results apart from WCAG.
 */
const TRAPPED = htmlPage(
  'Checkout',
  `<div style="display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:1em"><a href="/1">Step one</a><a href="/2">Step two</a></div>
<h2></h2>
<p><input id="trap" aria-label="Code"></p><p><a href="/terms">Terms</a></p>
<script>document.getElementById('trap').addEventListener('keydown', (e) => { if (e.key === 'Tab') e.preventDefault(); });</script>`,
);

describe('the console: a deep audit report', () => {
  let h: ConsoleHarness;
  let web: TestSite;
  let reportUrl = '';

  before(async () => {
    web = await serveSite({ '/checkout': TRAPPED });
    h = await startConsole('webcondeep', { services: ['audit'], env: { ...FAST_AUDITS, AUDIT_CONCURRENCY: '1' } });
  });
  after(async () => {
    await h?.close();
    await web?.close();
  });

  test('a site set to a deep audit runs one; its report shows the screenshot, the question and the passed checks', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/audits/sites/new`);
    await page.getByRole('heading', { level: 1, name: 'Add a site' }).waitFor();
    await page.getByLabel('Name').fill('Checkout');
    await page.getByLabel('URL', { exact: true }).fill(`${web.origin}/checkout`);
    const deep = page.getByRole('checkbox', { name: 'Deep audit (browser checks)' });
    assert.equal(await deep.isChecked(), false, 'off by default, as the API');
    await deep.check();
    await page.getByRole('checkbox', { name: 'Best-practice rules' }).check();
    await assertAccessible(page, 'site form with the deep audit');
    await h.screenshot(page, 'i29-deep-01-form');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
    await page.getByText(/deep audit \(browser checks\), best-practice rules/).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    const said = page.getByRole('status').filter({ hasText: /^The run (completed|failed)/ });
    await said.waitFor({ timeout: 120_000 });
    assert.match((await said.textContent()) ?? '', /^The run completed: score \d+/);

    await openFromNav(page, 'Runs');
    await page
      .getByRole('table', { name: 'Runs, newest first' })
      .getByRole('rowheader')
      .first()
      .getByRole('link')
      .click();
    await page.getByRole('heading', { level: 1, name: 'Audit report' }).waitFor();
    reportUrl = page.url();

    // The trap, with its screenshot: a real image, drawn.
    await page.getByRole('heading', { level: 3, name: /^2\.1\.2 No Keyboard Trap/ }).waitFor();
    const trap = page.locator('.finding').filter({ has: page.locator('code', { hasText: /^keyboard-trap$/ }) });
    const shot = trap.getByRole('img', { name: 'The failing element on the page, outlined in red' });
    assert.match((await shot.getAttribute('src')) ?? '', /^data:image\/jpeg;base64,/);
    await page.waitForFunction(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
      await shot.elementHandle(),
    );
    assert.ok(
      (await page.locator('main img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src') ?? ''))).every((s) =>
        s.startsWith('data:image/jpeg;base64,'),
      ),
      'every image is an engine screenshot',
    );

    // The question a person must answer, and how.
    const review = page.getByRole('region', { name: 'Needs review' });
    await review.getByText(/^Does the order in which Tab moves focus/).waitFor();
    const order = review.locator('.finding').filter({ hasText: 'focus-order-semantics-visual' });
    assert.match((await order.textContent()) ?? '', /Question.*How to check/s);

    // Passed checks, folded away until asked for.
    const passed = page.getByRole('region', { name: 'Passed checks' });
    const list = passed.locator('details.passed');
    assert.equal(await list.getAttribute('open'), null, 'collapsed by default');
    assert.equal(await passed.locator('li').first().isVisible(), false);
    await passed.locator('summary').click();
    await passed.getByText(/^focus-not-obscured$/).waitFor();
    assert.match((await passed.textContent()) ?? '', /2\.4\.11 Focus Not Obscured \(Minimum\)/);

    // Best practices apart from WCAG.
    const best = page.getByRole('region', { name: 'Best practices (not counted)' });
    await best
      .locator('code', { hasText: /^empty-heading$/ })
      .first()
      .waitFor();
    const wcag = page.getByRole('region', { name: /^Failures by success criterion/ });
    assert.equal(await wcag.locator('code', { hasText: /^empty-heading$/ }).count(), 0, 'not among the WCAG failures');

    await assertAccessible(page, 'deep audit report');
    await h.screenshot(page, 'i29-deep-02-report');
    await h.checkNarrow(page, 'deep audit report', 'i29-deep-03-report');
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: the passed checks open from the keyboard', async () => {
    assert.ok(reportUrl, 'the first test reached the report');
    const page = await h.open();
    await h.signIn(page);
    await page.goto(reportUrl);
    await page.getByRole('heading', { level: 2, name: 'Passed checks' }).waitFor();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Show the \d+ rules that found elements to check and no failure$/, 200);
    assert.equal((await focused(page)).tag, 'summary');
    await page.keyboard.press('Enter');
    await page
      .getByRole('region', { name: 'Passed checks' })
      .getByText(/^focus-not-obscured$/)
      .waitFor();
    assert.equal(await page.locator('section[aria-labelledby="passed-heading"] details').getAttribute('open'), '');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
