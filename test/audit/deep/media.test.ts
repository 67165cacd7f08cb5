import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from '../support.ts';
import { deepAudit, failures, reviews, ruleOutcome } from './support.ts';

let h: AuditHarness;
let site: TestSite;

/** A WAV file of `seconds` of silence: a real audio track of a known length. */
function wav(seconds: number): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * seconds);
  data.fill(128);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const AUTOPLAY = page('Autoplay', '<p>Welcome.</p><audio id="jingle" src="/long.wav" autoplay></audio>');
// No autoplay attribute: a script starts the loop on load. The test browser refuses to play without a gesture, as
// Chromium does for a site a person has not played media on; a browser that allows it plays the sound.
const SCRIPT_PLAY = page(
  'Script play',
  `<p>Welcome.</p><audio id="radio" src="/long.wav" loop></audio><script>document.getElementById('radio').play().catch(() => {});</script>`,
);
const WITH_CONTROLS = page('Controls', '<p>Welcome.</p><audio src="/long.wav" autoplay controls></audio>');
const SHORT = page('Short', '<p>Welcome.</p><audio src="/short.wav" autoplay></audio>');
const MUTED = page('Muted', '<p>Welcome.</p><audio src="/long.wav" autoplay muted></audio>');
const SPINNER = page(
  'Spinner',
  '<p>Welcome.</p><div id="slide" style="width:40px;height:40px;background:#1a4fa0;animation:slide 2s linear infinite"></div>',
  '<style>@keyframes slide { from { transform: translateX(0); } to { transform: translateX(200px); } }</style>',
);
const CALM = page(
  'Calm',
  '<p>Welcome.</p><div id="slide" style="width:40px;height:40px;background:#1a4fa0"></div>',
  '<style>@keyframes slide { from { transform: translateX(0); } to { transform: translateX(200px); } } @media (prefers-reduced-motion: no-preference) { #slide { animation: slide 2s linear infinite; } }</style>',
);
// A thin 1 px dotted outline in light grey is visible (2.4.7) but too small and faint for 2.4.13; a 3 px solid dark one is enough.
const THIN_RING = page(
  'Thin ring',
  '<p><a href="/a" id="thin">Thin</a></p><p><a href="/b" id="thick">Thick</a></p>',
  '<style>#thin:focus { outline: 1px dotted #bbb; } #thick:focus { outline: 3px solid #1a4fa0; outline-offset: 2px; }</style>',
);

before(async () => {
  h = await startAudit({}, 'auditdeepmedia');
  site = await serveSite({
    '/autoplay': AUTOPLAY,
    '/controls': WITH_CONTROLS,
    '/script-play': SCRIPT_PLAY,
    '/short': SHORT,
    '/muted': MUTED,
    '/spinner': SPINNER,
    '/calm': CALM,
    '/thin-ring': THIN_RING,
    '/long.wav': { body: wav(6), headers: { 'content-type': 'audio/wav' } },
    '/short.wav': { body: wav(2), headers: { 'content-type': 'audio/wav' } },
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('sound that starts on its own for 6 s with no control fails 1.4.2', async () => {
  const r = await deepAudit(h, `${site.origin}/autoplay`);
  const found = failures(r, 'audio-control');
  assert.deepEqual(
    found.map((f) => f.selector),
    ['#jingle'],
  );
  assert.match(found[0]!.fix, /6 s/);
});

test('sound a script starts on load, in a loop with no control, fails 1.4.2 even where the browser refused to play it', async () => {
  const r = await deepAudit(h, `${site.origin}/script-play`);
  assert.deepEqual(
    failures(r, 'audio-control').map((f) => f.selector),
    ['#radio'],
  );
});

test('autoplaying sound with controls, under 3 s, or muted passes or does not apply', async () => {
  const controls = await deepAudit(h, `${site.origin}/controls`);
  assert.deepEqual(failures(controls, 'audio-control'), []);
  assert.equal(ruleOutcome(controls, 'audio-control').passedPages, 1);
  const short = await deepAudit(h, `${site.origin}/short`);
  assert.deepEqual(failures(short, 'audio-control'), []);
  assert.deepEqual(reviews(short, 'audio-control'), []);
  const muted = await deepAudit(h, `${site.origin}/muted`);
  assert.equal(ruleOutcome(muted, 'audio-control').inapplicablePages, 1);
});

test('at AAA, motion that ignores prefers-reduced-motion is asked about (2.3.3); motion that honours it is not', async () => {
  const moving = await deepAudit(h, `${site.origin}/spinner`, { level: 'AAA' });
  const asked = reviews(moving, 'motion-reduced');
  assert.deepEqual(
    asked.map((n: any) => n.selector),
    ['#slide'],
  );
  assert.match(asked[0].question, /essential/);
  assert.deepEqual(failures(moving, 'motion-reduced'), []);
  const calm = await deepAudit(h, `${site.origin}/calm`, { level: 'AAA' });
  assert.deepEqual(reviews(calm, 'motion-reduced'), []);
  // A question never passes: 2.3.3 stays for a person to evaluate.
  assert.equal(ruleOutcome(calm, 'motion-reduced'), undefined);
});

test('at AA the AAA rules (focus appearance, motion) do not run', async () => {
  const r = await deepAudit(h, `${site.origin}/spinner`);
  assert.equal(ruleOutcome(r, 'motion-reduced'), undefined);
  assert.equal(ruleOutcome(r, 'focus-appearance'), undefined);
});

test('at AAA a faint 1 px dotted ring is visible but fails focus appearance (2.4.13); a 3 px solid ring passes', async () => {
  const r = await deepAudit(h, `${site.origin}/thin-ring`, { level: 'AAA' });
  assert.deepEqual(failures(r, 'focus-visible'), []);
  assert.deepEqual(
    failures(r, 'focus-appearance').map((f) => f.selector),
    ['#thin'],
  );
});
