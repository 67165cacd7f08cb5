import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from '../support.ts';
import { deepAudit, failures, ruleOutcome } from './support.ts';

let h: AuditHarness;
let site: TestSite;

const TEXT = 'Quarterly figures for every region, with the notes that explain them.';
const WIDE = page('Wide', `<div id="fixed" style="width:700px;background:#eee"><p>${TEXT}</p></div>`);
// Wraps at any width; its wide data table scrolls within its own region, which 1.4.10 allows.
const rows = Array.from(
  { length: 4 },
  (_, i) => `<tr><th scope="row">Region ${i}</th>${'<td>1,234,567</td>'.repeat(8)}</tr>`,
).join('');
const REFLOWS = page(
  'Reflows',
  `<div style="display:flex;flex-wrap:wrap;gap:1em"><p style="flex:1 1 200px">${TEXT}</p><p style="flex:1 1 200px">${TEXT}</p></div>
<img src="/pixel.png" alt="" style="max-width:100%;width:900px;height:20px">
<div role="region" aria-label="Figures" tabindex="0" style="overflow-x:auto"><table><caption>Figures</caption>${rows}</table></div>`,
);
const CLIPPED_BODY = page(
  'Clipped body',
  `<div id="banner" style="width:900px"><p>${TEXT}</p></div>`,
  '<style>body { overflow-x: hidden; }</style>',
);
// Three lines of text in a box exactly three lines high that hides its overflow: more spacing or larger text is cut off.
const TIGHT = page(
  'Tight',
  `<div id="card" style="width:300px;height:60px;line-height:20px;font-size:16px;overflow:hidden">${TEXT} ${TEXT}</div>`,
);
// The same box grows with its text.
const ROOMY = page(
  'Roomy',
  `<div style="width:300px;min-height:60px;line-height:1.25;font-size:16px;overflow:hidden">${TEXT} ${TEXT}</div>
<div style="width:300px;height:4em;overflow:hidden;font-size:16px;line-height:1.2">Short label</div>`,
);
// A label that is already cut off before anything changes is not blamed on the change.
const ALREADY = page(
  'Already',
  `<div style="width:120px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">${TEXT}</div>`,
);
const ROTATED = page(
  'Rotated',
  `<p>${TEXT}</p>`,
  '<style>@media (orientation: portrait) { html { transform: rotate(90deg); } }</style>',
);
const SCRIPT_LOCK = page(
  'Locked',
  `<p>${TEXT}</p><script>screen.orientation.lock('landscape').catch(() => {});</script>`,
);
// The `rotate` property turns the page as `transform` does, but getComputedStyle(el).transform does not show it.
const ROTATE_PROPERTY = page(
  'Rotate property',
  `<p>${TEXT}</p>`,
  '<style>@media (orientation: portrait) { html { rotate: 90deg; } }</style>',
);
// No element sticks out: the text of the paragraph does, an address that cannot wrap.
const LONG_WORD = page(
  'Long word',
  '<p id="address">Get it at https://downloads.example.com/releases/2026/11/installer-for-every-platform-final-version.zip today.</p>',
);
// A closed off-canvas menu parked past the right edge, with overflow-x: hidden on the body so it never shows:
// nothing is cut off that the reader should see.
const DRAWER = page(
  'Drawer',
  `<p>${TEXT}</p><nav aria-label="Menu" style="position:fixed;top:0;right:0;width:260px;height:100vh;transform:translateX(100%);background:#fff"><a href="/a">Home</a> <a href="/b">Shop</a></nav>`,
  '<style>body { overflow-x: hidden; }</style>',
);
const TURNS_FREELY = page(
  'Turns freely',
  `<p>${TEXT}</p>`,
  '<style>@media (orientation: portrait) { main { padding: 2em; } } .icon { transform: rotate(45deg); }</style>',
);

before(async () => {
  h = await startAudit({}, 'auditdeeplayout');
  site = await serveSite({
    '/wide': WIDE,
    '/reflows': REFLOWS,
    '/clipped-body': CLIPPED_BODY,
    '/tight': TIGHT,
    '/roomy': ROOMY,
    '/already': ALREADY,
    '/rotated': ROTATED,
    '/script-lock': SCRIPT_LOCK,
    '/turns-freely': TURNS_FREELY,
    '/rotate-property': ROTATE_PROPERTY,
    '/long-word': LONG_WORD,
    '/drawer': DRAWER,
    '/pixel.png': { body: '', headers: { 'content-type': 'image/png' } },
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('a fixed 700 px box makes the page scroll sideways at 320 px: reflow fails on it (1.4.10)', async () => {
  const r = await deepAudit(h, `${site.origin}/wide`);
  const found = failures(r, 'reflow');
  assert.deepEqual(
    found.map((f) => f.selector),
    ['#fixed'],
  );
  assert.match(found[0]!.fix, /scrolls sideways/);
  assert.deepEqual(r.findings.find((f: any) => f.ruleId === 'reflow').successCriteria, ['1.4.10']);
});

test('text that cannot wrap sticks out of its paragraph at 320 px: reflow fails on the paragraph', async () => {
  const r = await deepAudit(h, `${site.origin}/long-word`);
  assert.deepEqual(
    failures(r, 'reflow').map((f) => f.selector),
    ['#address'],
  );
});

test('a closed off-canvas menu past the right edge of a page that hides sideways overflow is no reflow failure', async () => {
  const r = await deepAudit(h, `${site.origin}/drawer`);
  assert.deepEqual(failures(r, 'reflow'), []);
});

test('content that wraps, a capped image and a wide table in its own scrolling region reflow correctly', async () => {
  const r = await deepAudit(h, `${site.origin}/reflows`);
  assert.deepEqual(failures(r, 'reflow'), []);
  assert.equal(ruleOutcome(r, 'reflow').passedPages, 1);
});

test('content cut off by overflow-x: hidden on the body fails reflow though nothing scrolls', async () => {
  const r = await deepAudit(h, `${site.origin}/clipped-body`);
  const found = failures(r, 'reflow');
  assert.deepEqual(
    found.map((f) => f.selector),
    ['#banner'],
  );
  assert.match(found[0]!.fix, /cuts it off/);
});

test('text in a fixed-height box that hides overflow is cut off by text spacing (1.4.12) and by 200 % text (1.4.4)', async () => {
  const r = await deepAudit(h, `${site.origin}/tight`);
  assert.deepEqual(
    failures(r, 'text-spacing').map((f) => f.selector),
    ['#card'],
  );
  assert.deepEqual(
    failures(r, 'resize-text').map((f) => f.selector),
    ['#card'],
  );
  const resize = r.findings.find((f: any) => f.ruleId === 'resize-text');
  assert.deepEqual(resize.successCriteria, ['1.4.4']);
  assert.deepEqual(resize.actRules, ['59br37']);
});

test('a box that grows with its text, and one sized in em, keep their text with more spacing and larger text', async () => {
  const r = await deepAudit(h, `${site.origin}/roomy`);
  assert.deepEqual(failures(r, 'text-spacing'), []);
  assert.deepEqual(failures(r, 'resize-text'), []);
  assert.equal(ruleOutcome(r, 'text-spacing').passedPages, 1);
});

test('text already cut off (an ellipsis) before the change is not a text-spacing failure', async () => {
  const r = await deepAudit(h, `${site.origin}/already`);
  assert.deepEqual(failures(r, 'text-spacing'), []);
});

test('a page turned a quarter in portrait by CSS fails orientation (1.3.4); so does a script locking landscape', async () => {
  const css = await deepAudit(h, `${site.origin}/rotated`);
  assert.deepEqual(
    failures(css, 'orientation-lock').map((f) => f.selector),
    ['html'],
  );
  const script = await deepAudit(h, `${site.origin}/script-lock`);
  const locked = failures(script, 'orientation-lock');
  assert.equal(locked.length, 1);
  assert.match(locked[0]!.fix, /landscape/);
});

test('a page turned a quarter in portrait by the rotate property fails orientation like a transform', async () => {
  const r = await deepAudit(h, `${site.origin}/rotate-property`);
  assert.deepEqual(
    failures(r, 'orientation-lock').map((f) => f.selector),
    ['html'],
  );
});

test('orientation media queries that do not turn the page, and small rotated icons, pass', async () => {
  const r = await deepAudit(h, `${site.origin}/turns-freely`);
  assert.deepEqual(failures(r, 'orientation-lock'), []);
  assert.equal(ruleOutcome(r, 'orientation-lock').passedPages, 1);
});
