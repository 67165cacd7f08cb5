import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateGate } from '../../src/audit/ci/gate.ts';
import { applyIgnoreRules } from '../../src/audit/ignore/apply.ts';
import { resolveIgnoreRules, type IgnoreRule } from '../../src/audit/ignore/rules.ts';
import { renderHtmlReport } from '../../src/audit/report/render.ts';
import { sampleResult } from './fixtures/sample-result.ts';

/** Ignore rules mark failures, never drop them; an expired rule hides nothing, and the gate counts its failures again. */

const RULES: IgnoreRule[] = [
  { rule: 'image-alt', url: '/', reason: 'Hero image alt text ships with SHOP-12', expires: '2030-06-30' },
  {
    rule: 'color-contrast',
    selector: 'footer a.legal',
    reason: 'Legal link colour is the brand’s',
    expires: '2024-01-31',
  },
];

test('a rule in force marks the failures it matches; they stay listed and counted; the gate leaves them out', () => {
  const plain = sampleResult();
  const result = applyIgnoreRules(plain, RULES, new Date('2025-01-01T12:00:00Z'));
  assert.equal(result.findings.length, plain.findings.length, 'nothing is dropped');
  assert.equal(result.stats.totalFindings, plain.stats.totalFindings);
  assert.equal(result.score, plain.score);
  assert.equal(result.conformant, plain.conformant);
  const hero = result.findings.find((f) => f.ruleId === 'image-alt' && f.pageUrl === 'https://shop.example.test/')!;
  assert.deepEqual(hero.ignored, { rule: 0, reason: 'Hero image alt text ships with SHOP-12', expires: '2030-06-30' });
  const other = result.findings.find((f) => f.ruleId === 'image-alt' && f.pageUrl !== 'https://shop.example.test/')!;
  assert.equal(other.ignored, undefined, 'the url pattern / matches the home page only');
  assert.equal(result.stats.ignored, 1);
  assert.deepEqual(
    result.ignoreRules!.map((r) => [r.status, r.matched]),
    [
      ['active', 1],
      ['expired', 1],
    ],
  );
  const criticalBefore = evaluateGate(plain, { failOn: 'critical' }, null);
  const criticalAfter = evaluateGate(result, { failOn: 'critical' }, null);
  assert.equal(criticalBefore.checks[0]!.line.split(' ')[0], String(plain.stats.critical));
  assert.equal(criticalAfter.checks[0]!.line.split(' ')[0], String(plain.stats.critical - 1));
});

test('an expired rule stops hiding its failure: the gate fails on it again', () => {
  // The shop's contrast failures alone, so the gate's verdict is the rule's doing.
  const sample = sampleResult();
  const contrast = { ...sample, findings: sample.findings.filter((f) => f.ruleId === 'color-contrast') };
  assert.ok(contrast.findings.length > 0);
  const rule: IgnoreRule = { rule: 'color-contrast', reason: 'Brand colours under review', expires: '2025-03-31' };
  const lastDay = applyIgnoreRules(contrast, [rule], new Date('2025-03-31T23:59:59Z'));
  const dayAfter = applyIgnoreRules(contrast, [rule], new Date('2025-04-01T00:00:00Z'));
  assert.ok(
    lastDay.findings.every((f) => f.ignored),
    'in force through the whole of its last day (UTC)',
  );
  assert.ok(
    dayAfter.findings.every((f) => !f.ignored),
    'expired the next day',
  );
  assert.deepEqual(
    dayAfter.ignoreRules!.map((r) => [r.status, r.matched]),
    [['expired', contrast.findings.length]],
  );
  assert.equal(evaluateGate(lastDay, { failOn: 'serious' }, null).exitCode, 0);
  const after = evaluateGate(dayAfter, { failOn: 'serious' }, null);
  assert.equal(after.exitCode, 4);
  assert.equal(
    after.checks[0]!.line,
    `${contrast.findings.length} failures of impact serious or worse (serious ${contrast.findings.length})`,
  );
});

test('the HTML report shows ignored failures as ignored, and every rule with what it hides or no longer hides', () => {
  const html = renderHtmlReport(applyIgnoreRules(sampleResult(), RULES, new Date('2025-01-01T00:00:00Z')));
  assert.match(html, /<span class="badge ignored">Ignored<\/span>/);
  assert.match(html, /<dt>Ignored<\/dt><dd>Until 2030-06-30: Hero image alt text ships with SHOP-12\./);
  assert.match(html, /<h2 id="ignored">Ignore rules<\/h2>/);
  assert.match(html, /In force until 2030-06-30; hides 1 failure</);
  assert.match(html, /Expired 2024-01-31; no longer hides 1 failure, counted again</);
  assert.match(html, /<dt>Ignored by rules<\/dt><dd>1<\/dd>/);
});

test('a rule needs something to match, a reason and a real date', () => {
  const cases: Array<[IgnoreRule, RegExp]> = [
    [
      { reason: 'everything', expires: '2030-01-01' },
      /^ignore\[0\] needs rule, selector or url: a rule matching everything would hide every failure$/,
    ],
    [{ rule: 'label', reason: ' ', expires: '2030-01-01' }, /^ignore\[0\] needs a reason$/],
    [
      { rule: 'label', reason: 'x', expires: '2030-02-30' },
      /^ignore\[0\]\.expires must be a date \(YYYY-MM-DD\); got "2030-02-30"$/,
    ],
  ];
  for (const [rule, message] of cases) assert.throws(() => resolveIgnoreRules([rule]), { message });
});
