import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateGate } from '../../src/audit/ci/gate.ts';
import { toJUnit } from '../../src/audit/ci/junit.ts';
import { toSarif } from '../../src/audit/ci/sarif.ts';
import { applyIgnoreRules } from '../../src/audit/ignore/apply.ts';
import type { AuditResult } from '../../src/audit/result/types.ts';
import { junitErrors, sarifErrors } from './ci-format-validators.ts';
import { sampleResult } from './fixtures/sample-result.ts';

/**
 * JUnit XML and SARIF 2.1.0 from a realistic result — a failed page, hostile markup, characters XML cannot carry,
 * elements past the cap, an ignore rule in force and an expired one, a failed threshold — valid against the
 * published schemas (Jenkins' junit-4.xsd with xmllint, OASIS's SARIF 2.1.0 with Ajv), and saying what they must.
 */

function realistic(): AuditResult {
  const base = sampleResult({ pages: 4, failedPage: true });
  const [first, ...rest] = base.findings;
  const hostile = { ...first!, html: `${first!.html}<!-- \u0001 bell \u0007 lone \uD800 surrogate ]]> & "q" -->` };
  const withOmitted: AuditResult = {
    ...base,
    findings: [hostile, ...rest],
    omitted: [
      {
        pageUrl: first!.pageUrl,
        ruleId: first!.ruleId,
        successCriteria: first!.successCriteria,
        findings: 40,
        needsReview: 0,
      },
    ],
  };
  return applyIgnoreRules(
    withOmitted,
    [
      { rule: 'color-contrast', selector: 'footer a.legal', reason: 'Brand colour, WEB-9', expires: '2099-01-01' },
      { rule: 'image-alt', reason: 'Expired plan', expires: '2020-01-01' },
    ],
    new Date('2025-01-01T00:00:00Z'),
  );
}

test('JUnit: valid against the Jenkins schema; a suite per page, a case per failing element, ignored ones skipped, the thresholds as cases', () => {
  const result = realistic();
  const gate = evaluateGate(result, { minScore: 100, failOn: 'critical' }, null);
  const xml = toJUnit(result, gate);
  assert.deepEqual(junitErrors(xml), []);
  const suites = [
    ...xml.matchAll(/<testsuite name="([^"]*)" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/g),
  ];
  assert.equal(suites.length, result.pages.length + 1, 'one suite per page and one for the thresholds');
  const failedPage = result.pages.find((p) => p.status === 'failed')!;
  assert.match(
    xml,
    new RegExp(
      `<error message="${failedPage.error!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/"/g, '&quot;')}"/>`,
    ),
  );
  const counted = result.findings.filter((f) => !f.ignored).length;
  const ignored = result.findings.filter((f) => f.ignored).length;
  assert.equal(ignored, 1);
  const sum = (i: number) => suites.slice(0, -1).reduce((n, s) => n + Number(s[i]), 0);
  assert.equal(sum(3), counted + 1, 'each failing element, and the rule whose elements past the cap are not listed');
  assert.equal(sum(5), ignored);
  assert.match(xml, /<skipped>ignored until 2099-01-01: Brand colour, WEB-9<\/skipped>/);
  assert.match(xml, /<testcase classname="image-alt" name="image-alt: 40 more failing elements, not listed"/);
  assert.match(xml, /<testsuite name="thresholds" tests="2" failures="2"/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for characters XML 1.0 cannot carry
  assert.ok(!/[\u0001\u0007\uD800]/.test(xml), 'characters XML 1.0 cannot carry are dropped');
  assert.match(xml, /&lt;img src=&quot;\/p\/2.jpg&quot; onerror=&quot;alert\(1\)&quot;&gt;/, 'markup is text, escaped');
});

test('JUnit: the schema check is real — documents the Jenkins schema refuses are refused', () => {
  const xml = toJUnit(realistic(), { checks: [], exitCode: 0 });
  assert.deepEqual(junitErrors(xml), []);
  // junit-4.xsd's skipped is text only, and a suite must be named.
  assert.notDeepEqual(junitErrors(xml.replace('<skipped>', '<skipped message="x">')), []);
  assert.notDeepEqual(junitErrors(xml.replace('<testsuite name=', '<testsuite title=')), []);
});

test('SARIF: valid against the published 2.1.0 schema; results located by page and selector; ignored ones suppressed; failed pages reported', () => {
  const result = realistic();
  const log = JSON.parse(toSarif(result));
  assert.deepEqual(sarifErrors(log), []);
  assert.equal(log.version, '2.1.0');
  const run = log.runs[0];
  assert.equal(run.tool.extensions[0].name, 'axe-core');
  const listed = run.results.filter((r: any) => r.locations[0].logicalLocations);
  assert.equal(listed.length, result.findings.length);
  const first = result.findings[0]!;
  const sarif = listed[0];
  assert.equal(sarif.ruleId, first.ruleId);
  assert.equal(run.tool.driver.rules[sarif.ruleIndex].id, first.ruleId);
  assert.equal(sarif.level, 'error');
  assert.equal(sarif.locations[0].physicalLocation.artifactLocation.uri, first.pageUrl);
  assert.equal(run.artifacts[sarif.locations[0].physicalLocation.artifactLocation.index].location.uri, first.pageUrl);
  assert.equal(sarif.locations[0].logicalLocations[0].fullyQualifiedName, first.selector);
  assert.match(sarif.partialFingerprints['accessibilityFailure/v1'], /^[0-9a-f]{64}$/);
  const suppressed = run.results.filter((r: any) => r.suppressions);
  assert.equal(suppressed.length, 1);
  assert.deepEqual(suppressed[0].suppressions, [
    { kind: 'external', status: 'accepted', justification: 'Brand colour, WEB-9 (ignored until 2099-01-01)' },
  ]);
  const notes = run.invocations[0].toolExecutionNotifications;
  assert.equal(notes.length, 1);
  assert.match(notes[0].message.text, / could not be audited: /);
  assert.ok(run.results.some((r: any) => /^40 more elements fail image-alt on this page/.test(r.message.text)));
});

test('SARIF: the schema check is real — a log the schema refuses is refused', () => {
  const log = JSON.parse(toSarif(sampleResult()));
  assert.deepEqual(sarifErrors(log), []);
  const broken = structuredClone(log);
  broken.version = '2.0.0';
  broken.runs[0].results[0].level = 'critical';
  const errors = sarifErrors(broken);
  assert.ok(
    errors.some((e) => e.startsWith('/version ')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('/runs/0/results/0/level ')),
    errors.join('\n'),
  );
});
