import type { AuditResult, Finding, PageResult } from '../result/types.ts';
import type { GateOutcome } from './gate.ts';
import { element, xmlText } from './xml.ts';

/**
 * The run as JUnit XML, for CI systems' test views (GitLab, Jenkins, Azure Pipelines, CircleCI): one test suite per
 * page, whose first case is that the page loaded and was checked (an error when it could not be audited) and then
 * one case per failing element — a failure, or skipped when an ignore rule in force matches it — and one per rule
 * whose elements past the cap are not listed. A last suite holds the thresholds, one case each. Valid against the
 * Jenkins JUnit schema (junit-4.xsd) that the tests check it with.
 */
export function toJUnit(result: AuditResult, gate: GateOutcome): string {
  const suites = result.pages.map((page) => pageSuite(result, page));
  if (gate.checks.length) suites.push(gateSuite(gate, result.finishedAt));
  const tests = suites.reduce((n, s) => n + s.tests, 0);
  const failures = suites.reduce((n, s) => n + s.failures, 0);
  const errors = suites.reduce((n, s) => n + s.errors, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(
    'testsuites',
    {
      name: `Accessibility audit of ${result.url} (WCAG ${result.wcagVersion} ${result.wcagLevel})`,
      tests,
      failures,
      errors,
      time: seconds(Date.parse(result.finishedAt) - Date.parse(result.startedAt)),
    },
    `\n${suites.map((s) => s.xml).join('\n')}\n`,
  )}\n`;
}

interface Suite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
}

function pageSuite(result: AuditResult, page: PageResult): Suite {
  const findings = result.findings.filter((f) => f.pageUrl === page.url);
  const omitted = (result.omitted ?? []).filter((o) => o.pageUrl === page.url && o.findings > 0);
  const cases: string[] = [];
  const loaded = 'the page loads and axe checks it';
  cases.push(
    page.status === 'failed'
      ? testCase(
          page.url,
          loaded,
          page.durationMs,
          element('error', { message: page.error ?? 'the page could not be audited' }),
        )
      : testCase(page.url, loaded, page.durationMs),
  );
  for (const f of findings) cases.push(findingCase(f));
  for (const o of omitted)
    cases.push(
      testCase(
        o.ruleId,
        `${o.ruleId}: ${o.findings} more failing elements, not listed`,
        0,
        element(
          'failure',
          { type: 'omitted', message: `${o.findings} more elements fail ${o.ruleId} on this page` },
          xmlText(
            `The report lists at most ${result.engine.maxElementsPerRule ?? 'a fixed number of'} elements per rule and page.`,
          ),
        ),
      ),
    );
  const failures = findings.filter((f) => !f.ignored).length + omitted.length;
  const skipped = findings.filter((f) => f.ignored).length;
  const errors = page.status === 'failed' ? 1 : 0;
  const properties = element(
    'properties',
    {},
    [
      element('property', { name: 'wcag', value: `${result.wcagVersion} ${result.wcagLevel}` }),
      element('property', { name: 'score', value: page.score ?? 'not audited' }),
      element('property', { name: 'title', value: page.title ?? '' }),
    ].join(''),
  );
  return {
    tests: cases.length,
    failures,
    errors,
    xml: element(
      'testsuite',
      {
        name: page.url,
        tests: cases.length,
        failures,
        errors,
        skipped,
        time: seconds(page.durationMs),
        timestamp: result.startedAt,
      },
      `\n${properties}\n${cases.join('\n')}\n`,
    ),
  };
}

function findingCase(f: Finding): string {
  const name = `${f.ruleId} at ${f.selector}`;
  if (f.ignored)
    return testCase(
      f.ruleId,
      name,
      0,
      element('skipped', {}, xmlText(`ignored until ${f.ignored.expires}: ${f.ignored.reason}`)),
    );
  const body = [
    `${f.summary}`,
    `Impact: ${f.impact}; WCAG ${f.successCriteria.join(', ') || '(no criterion)'} (level ${f.level})`,
    `Element: ${f.selector}`,
    `Markup: ${f.html}`,
    f.fix,
    `More: ${f.help}`,
  ].join('\n');
  return testCase(f.ruleId, name, 0, element('failure', { type: f.impact, message: f.summary }, xmlText(body)));
}

function gateSuite(gate: GateOutcome, timestamp: string): Suite {
  const cases = gate.checks.map((check) =>
    testCase(
      'thresholds',
      check.threshold,
      0,
      check.passed
        ? ''
        : element('failure', { type: 'threshold', message: check.line }, xmlText(check.details.join('\n'))),
    ),
  );
  const failures = gate.checks.filter((c) => !c.passed).length;
  return {
    tests: cases.length,
    failures,
    errors: 0,
    xml: element(
      'testsuite',
      { name: 'thresholds', tests: cases.length, failures, errors: 0, skipped: 0, time: 0, timestamp },
      `\n${cases.join('\n')}\n`,
    ),
  };
}

function testCase(classname: string, name: string, ms: number, children = ''): string {
  return element('testcase', { classname, name, time: seconds(ms) }, children);
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
