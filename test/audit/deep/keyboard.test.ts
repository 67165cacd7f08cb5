import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from '../support.ts';
import { deepAudit, failures, reviews, ruleOutcome } from './support.ts';

let h: AuditHarness;
let site: TestSite;

// Tab and Shift+Tab are cancelled in the frame's field: focus can never leave it.
const TRAP_FRAME = page(
  'Trap',
  `<label>Card number <input id="card"></label>
<script>document.getElementById('card').addEventListener('keydown', (e) => { if (e.key === 'Tab') e.preventDefault(); });</script>`,
);
const TRAP = page(
  'Checkout',
  `<main><h1>Checkout</h1><a href="/help">Help</a>
<iframe id="payment" title="Payment" src="/trap-frame"></iframe>
<a href="/terms">Terms</a><button>Pay</button></main>`,
);
// A modal dialog keeps focus inside on purpose and closes on Escape: no trap.
const MODAL = page(
  'Modal',
  `<main><h1>Newsletter</h1><a href="/a">First link</a><a href="/b">Second link</a>
<div role="dialog" aria-modal="true" aria-label="Subscribe" id="dialog">
  <button id="yes" autofocus>Subscribe</button><button id="no">No thanks</button>
</div></main>
<script>
  const dialog = document.getElementById('dialog');
  const yes = document.getElementById('yes');
  const no = document.getElementById('no');
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { dialog.remove(); document.querySelector('a').focus(); }
    if (e.key !== 'Tab') return;
    e.preventDefault();
    (document.activeElement === yes ? no : yes).focus();
  });
</script>`,
);
// A modal that keeps focus in and closes only with its own button: a question for a person, not a failure.
const MODAL_BUTTON = page(
  'Modal button',
  `<a href="/a">First link</a><a href="/b">Second link</a>
<div role="dialog" aria-modal="true" aria-label="Cookies" id="dialog">
  <button id="accept" autofocus>Accept</button><button id="close">Close</button>
</div>
<script>
  const dialog = document.getElementById('dialog');
  const accept = document.getElementById('accept');
  const close = document.getElementById('close');
  close.addEventListener('click', () => dialog.remove());
  dialog.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab') return;
    e.preventDefault();
    (document.activeElement === accept ? close : accept).focus();
  });
</script>`,
);
const NO_RING = page(
  'No ring',
  `<main><h1>Links</h1><p><a href="/a" id="bare" style="outline:none">Without a ring</a></p>
<p><a href="/b" id="ringed">With the browser's ring</a></p></main>`,
);
// The outline is removed but a box shadow replaces it: visible.
const SHADOW_RING = page(
  'Shadow ring',
  `<style>a:focus { outline: none; box-shadow: 0 0 0 3px #1a4fa0; }</style>
<main><h1>Links</h1><p><a href="/a" id="shadowed">Shadow ring</a></p><p><a href="/b">Another</a></p></main>`,
);
const longList = Array.from({ length: 40 }, (_, i) => `<li><a href="/p${i}">Page ${i}</a></li>`).join('');
const BANNER = `<div id="cookies" style="position:fixed;bottom:0;left:0;right:0;height:240px;background:#222;color:#fff">We use cookies.</div>`;
const OBSCURED = page('Obscured', `<main><h1>Pages</h1><ul>${longList}</ul></main>${BANNER}`);
const NOT_OBSCURED = page(
  'Not obscured',
  `<style>html { scroll-padding-bottom: 260px; } main { padding-bottom: 260px; }</style><main><h1>Pages</h1><ul>${longList}</ul></main>${BANNER}`,
);
const REVERSED = page(
  'Reversed',
  `<main><h1>Steps</h1><div style="display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:1em">
<a href="/1" id="one">Step one</a><a href="/2" id="two">Step two</a><a href="/3" id="three">Step three</a></div></main>`,
);
const IN_ORDER = page(
  'In order',
  `<main><h1>Steps</h1><div style="display:flex;gap:1em"><a href="/1">Step one</a><a href="/2">Step two</a></div>
<div style="display:grid;grid-template-columns:1fr 1fr"><div><a href="/l1">Left one</a><br><a href="/l2">Left two</a></div>
<div><a href="/r1">Right one</a><br><a href="/r2">Right two</a></div></div></main>`,
);
const CLICK_ONLY = page(
  'Click only',
  `<main><h1>Toggle</h1><div role="button" tabindex="0" id="mouse" aria-pressed="false">Mouse only</div>
<div role="button" tabindex="0" id="both" aria-pressed="false">Keyboard too</div></main>
<script>
  const toggle = (el) => el.setAttribute('aria-pressed', el.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
  const mouse = document.getElementById('mouse');
  mouse.addEventListener('click', () => toggle(mouse));
  const both = document.getElementById('both');
  both.addEventListener('click', () => toggle(both));
  both.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(both); } });
</script>`,
);
const manyLinks = Array.from({ length: 600 }, (_, i) => `<a href="/m${i}">Link ${i}</a>`).join(' ');
const MANY = page('Many', `<main><h1>Many links</h1><p>${manyLinks}</p></main>`);

before(async () => {
  // A short deep budget, so the page with 5,000 links shows the checks stopping at it.
  h = await startAudit({ AUDIT_DEEP_BUDGET_SECONDS: '20' }, 'auditdeepkeys');
  site = await serveSite({
    '/trap': TRAP,
    '/trap-frame': TRAP_FRAME,
    '/modal': MODAL,
    '/modal-button': MODAL_BUTTON,
    '/no-ring': NO_RING,
    '/shadow-ring': SHADOW_RING,
    '/obscured': OBSCURED,
    '/not-obscured': NOT_OBSCURED,
    '/reversed': REVERSED,
    '/in-order': IN_ORDER,
    '/click-only': CLICK_ONLY,
    '/many': MANY,
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('a keyboard trap inside an iframe is found, the field named through its frame, with 2.1.2 and its ACT rule', async () => {
  const r = await deepAudit(h, `${site.origin}/trap`);
  const found = r.findings.filter((f: any) => f.ruleId === 'keyboard-trap');
  assert.equal(found.length, 1, JSON.stringify(r.findings));
  assert.equal(found[0].selector, '#payment >>> #card');
  assert.deepEqual(found[0].successCriteria, ['2.1.2']);
  assert.equal(found[0].level, 'A');
  assert.equal(found[0].impact, 'critical');
  assert.ok(found[0].actRules.includes('a1b64e'));
  assert.match(found[0].fix, /trapped/);
  assert.equal(r.conformant, false);
});

test('a modal dialog that keeps focus in but closes on Escape is no trap', async () => {
  const r = await deepAudit(h, `${site.origin}/modal`);
  assert.deepEqual(failures(r, 'keyboard-trap'), []);
  assert.equal(ruleOutcome(r, 'keyboard-trap').passedPages, 1);
});

test('a dialog that keeps focus in and closes only with its button is asked about, not failed', async () => {
  const r = await deepAudit(h, `${site.origin}/modal-button`);
  assert.deepEqual(failures(r, 'keyboard-trap'), []);
  const asked = reviews(r, 'keyboard-trap');
  assert.equal(asked.length, 1);
  assert.match(asked[0].reason, /dialog/);
  assert.match(asked[0].question, /close this dialog/);
});

test('a link whose outline is removed with nothing instead fails focus-visible; the browser ring passes', async () => {
  const r = await deepAudit(h, `${site.origin}/no-ring`);
  assert.deepEqual(
    failures(r, 'focus-visible').map((f) => f.selector),
    ['#bare'],
  );
  const f = r.findings.find((x: any) => x.ruleId === 'focus-visible');
  assert.deepEqual(f.successCriteria, ['2.4.7']);
});

test('an outline replaced by a box shadow is a visible focus', async () => {
  const r = await deepAudit(h, `${site.origin}/shadow-ring`);
  assert.deepEqual(failures(r, 'focus-visible'), []);
  assert.deepEqual(reviews(r, 'focus-visible'), []);
  assert.equal(ruleOutcome(r, 'focus-visible').passedPages, 1);
});

test('links scrolled into view under a fixed cookie banner are hidden focus (2.4.11); scroll-padding clears them', async () => {
  const bad = await deepAudit(h, `${site.origin}/obscured`);
  const hidden = failures(bad, 'focus-not-obscured');
  assert.ok(hidden.length > 0, JSON.stringify(bad.rules.find((x: any) => x.ruleId === 'focus-not-obscured')));
  assert.match(hidden[0]!.fix, /#cookies/);
  const good = await deepAudit(h, `${site.origin}/not-obscured`);
  assert.deepEqual(failures(good, 'focus-not-obscured'), []);
  assert.equal(ruleOutcome(good, 'focus-not-obscured').passedPages, 1);
});

test('focus order against the visual order is a question for a person, never a failure; columns read in order are not', async () => {
  const bad = await deepAudit(h, `${site.origin}/reversed`);
  const asked = reviews(bad, 'focus-order-semantics-visual');
  assert.ok(asked.length >= 1);
  assert.match(asked[0].question, /order/);
  assert.match(asked[0].howToCheck, /Tab/);
  assert.deepEqual(failures(bad, 'focus-order-semantics-visual'), []);
  const good = await deepAudit(h, `${site.origin}/in-order`);
  assert.deepEqual(reviews(good, 'focus-order-semantics-visual'), []);
});

test('a custom button that reacts to a click but not to Enter or Space fails 2.1.1; one with key handling passes', async () => {
  const r = await deepAudit(h, `${site.origin}/click-only`);
  assert.deepEqual(
    failures(r, 'keyboard-activation').map((f) => f.selector),
    ['#mouse'],
  );
});

test('a page with 600 links is walked to its cap (400 presses) or its time and says so, within the time limit', async () => {
  const r = await deepAudit(h, `${site.origin}/many`);
  assert.equal(r.pages[0].status, 'audited');
  const capped = reviews(r, 'keyboard-trap');
  assert.equal(capped.length, 1);
  assert.match(capped[0].reason, /walk stopped after \d+ of about 600/);
  assert.ok(reviews(r, 'focus-visible').some((n: any) => /Only the first 40/.test(n.reason)));
});

test('without deep, none of the browser checks run', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/trap` });
  const r = res.json();
  assert.equal(r.config.deep, false);
  assert.equal(ruleOutcome(r, 'keyboard-trap'), undefined);
});
