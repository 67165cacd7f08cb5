import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/tmp.ts';
import { escapeHtml } from '../../src/audit/report/escape.ts';
import { junitErrors, sarifErrors } from './ci-format-validators.ts';
import { platformRun, writeYaml } from './ci-support.ts';
import { PASSWORD, serveSignInSite, signInSteps, type SignInSite } from './sign-in-site.ts';
import { startAudit, type AuditHarness } from './support.ts';

/**
 * `platform audit run` as a CI job uses it, from a team's project folder: in-process with its own browser, or
 * against a running service; a summary for the log; an exit code per failed threshold.
 */

let site: SignInSite;
let project: { path: string; remove(): void };
const env = () => ({ SITE_PASSWORD: PASSWORD });

/** The team's ignore rules for the signed-in pages' three critical failures; the last one has expired. */
const IGNORE = [
  { rule: 'image-alt', url: '/account', reason: 'Avatar alt text ships with ACC-7', expires: '2099-12-31' },
  { rule: 'label', selector: '#nickname', reason: 'Nickname field redesign', expires: '2099-12-31' },
  { rule: 'label', selector: '#shown-password', reason: 'Password echo removed in ACC-9', expires: '2020-01-01' },
];

before(async () => {
  site = await serveSignInSite();
  project = tempDir('platform-ci-project-');
  writeYaml(project.path, 'ignore.yml', IGNORE);
  writeYaml(project.path, 'signed-out.yml', { url: `${site.origin}/account` });
  writeYaml(project.path, '.a11y.yml', {
    url: `${site.origin}/account`,
    crawl: { maxPages: 2 },
    session: { steps: signInSteps(site.origin) },
  });
});

after(async () => {
  await site?.close();
  project?.remove();
});

test('in-process, signed in from the site file: the summary a person reads, the reports, exit 0 without thresholds', async () => {
  const run = await platformRun(
    [
      '--result',
      'result.json',
      '--html',
      'report.html',
      '--openacr',
      'acr.yaml',
      '--junit',
      'junit.xml',
      '--sarif',
      'a11y.sarif',
    ],
    project.path,
    env(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(`^Accessibility audit of ${site.origin}/account \\(WCAG 2\\.2 AA\\): 2 pages, score \\d+/100$`, 'm'),
  );
  assert.match(
    run.stdout,
    /^Failures: \d+ \(critical \d+, serious \d+, moderate \d+, minor \d+\); \d+ to review by a person$/m,
  );
  assert.match(
    run.stdout,
    /^ {2}critical image-alt: 1 element on 1 page \(\/account\) — Images must have alternative text$/m,
  );
  assert.match(run.stdout, /^Report: result\.json$/m);
  assert.match(run.stdout, /^Report: a11y\.sarif$/m);
  assert.match(run.stdout, /^Result: passed \(no thresholds set\)$/m);
  assert.match(run.stderr, /^site file: \.a11y\.yml$/m);
  const result = JSON.parse(readFileSync(join(project.path, 'result.json'), 'utf8'));
  assert.deepEqual(
    result.pages.map((p: { title: string }) => p.title),
    ['Your account', 'Settings'],
  );
  assert.match(readFileSync(join(project.path, 'report.html'), 'utf8'), /^<!doctype html>/i);
  assert.match(readFileSync(join(project.path, 'acr.yaml'), 'utf8'), /^title: /m);
  const junit = readFileSync(join(project.path, 'junit.xml'), 'utf8');
  assert.deepEqual(junitErrors(junit), []);
  assert.match(
    junit,
    /<testcase classname="image-alt" name="image-alt at #avatar" time="0.000"><failure type="critical" message="Images must have alternative text">/,
  );
  const sarif = JSON.parse(readFileSync(join(project.path, 'a11y.sarif'), 'utf8'));
  assert.deepEqual(sarifErrors(sarif), []);
  assert.ok(
    sarif.runs[0].results.some(
      (r: any) => r.ruleId === 'image-alt' && r.locations[0].logicalLocations[0].fullyQualifiedName === '#avatar',
    ),
  );
  const files = ['result.json', 'report.html', 'acr.yaml', 'junit.xml', 'a11y.sarif'];
  const outputs: Array<[string, string]> = [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
    ...files.map((f): [string, string] => [f, readFileSync(join(project.path, f), 'utf8')]),
  ];
  for (const [where, text] of outputs)
    for (const form of [PASSWORD, encodeURIComponent(PASSWORD), escapeHtml(PASSWORD)])
      assert.ok(!text.includes(form), `${where} carries the password`);
});

test('each threshold that fails has its exit code, and several give the lowest', async () => {
  const cases: Array<[string[], number, RegExp]> = [
    [['--min-score', '100'], 3, /^ {2}FAIL {2}score \d+ < the minimum 100$/m],
    [['--min-score', '0'], 0, /^ {2}pass {2}score \d+ ≥ the minimum 0$/m],
    [['--fail-on', 'critical'], 4, /^ {2}FAIL {2}3 failures of impact critical \(critical 3\)$/m],
    [['--fail-on', 'serious', '--min-score', '100'], 3, /^Result: failed \(exit 3\)$/m],
  ];
  for (const [args, code, line] of cases) {
    const run = await platformRun(args, project.path, env());
    assert.equal(run.code, code, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout, line, args.join(' '));
  }
});

test('new failures are counted against a baseline file; a result compared with itself has none', async () => {
  // The signed-out page is the baseline: everything the signed-in one fails is new.
  const before = await platformRun(['--site', 'signed-out.yml', '--result', 'baseline.json'], project.path);
  assert.equal(before.code, 0, before.stderr);
  const run = await platformRun(
    ['--fail-on-new', '--baseline', 'baseline.json', '--result', 'now.json'],
    project.path,
    env(),
  );
  assert.equal(run.code, 5, run.stdout + run.stderr);
  assert.match(run.stdout, /^ {2}FAIL {2}\d+ new failures against the baseline baseline\.json$/m);
  assert.match(run.stdout, /^ {10}critical image-alt on \/account at #avatar: Images must have alternative text$/m);
  const same = await platformRun(['--fail-on-new', '--baseline', 'now.json', '--json'], project.path, env());
  assert.equal(same.code, 0, same.stdout + same.stderr);
  const summary = JSON.parse(same.stdout);
  assert.equal(summary.passed, true);
  assert.deepEqual(summary.checks[0].line, 'no new failures against the baseline now.json');
});

test('ignore rules from the team’s file hide their failures from the gate, shown as ignored; the expired one hides nothing', async () => {
  const run = await platformRun(
    ['--ignore', 'ignore.yml', '--fail-on', 'critical', '--result', 'ignored.json', '--html', 'ignored.html'],
    project.path,
    env(),
  );
  assert.equal(run.code, 4, run.stdout + run.stderr);
  assert.match(run.stderr, /^ignore file: ignore\.yml \(3 rules\)$/m);
  assert.match(run.stdout, /^Ignore rules: 2 failures ignored$/m);
  assert.match(
    run.stdout,
    /^ {2}in force until 2099-12-31, hides 1: image-alt on \/account — Avatar alt text ships with ACC-7$/m,
  );
  assert.match(
    run.stdout,
    /^ {2}EXPIRED 2020-01-01, no longer hides 1: label at #shown-password — Password echo removed in ACC-9$/m,
  );
  assert.match(run.stdout, /^ {2}FAIL {2}1 failure of impact critical \(critical 1\)$/m);
  assert.match(run.stdout, /^ {10}critical label on \/account at #shown-password: Form elements must have labels$/m);
  const result = JSON.parse(readFileSync(join(project.path, 'ignored.json'), 'utf8'));
  assert.equal(result.stats.critical, 3, 'ignored failures are still failures');
  assert.equal(result.stats.ignored, 2);
  assert.deepEqual(
    result.findings.filter((f: any) => f.ignored).map((f: any) => [f.selector, f.ignored.reason]),
    [
      ['#avatar', 'Avatar alt text ships with ACC-7'],
      ['#nickname', 'Nickname field redesign'],
    ],
  );
  assert.match(
    readFileSync(join(project.path, 'ignored.html'), 'utf8'),
    /Expired 2020-01-01; no longer hides 1 failure, counted again/,
  );

  // The same rule, renewed: nothing critical is left for the gate.
  writeYaml(
    project.path,
    'renewed.yml',
    IGNORE.map((r) => ({ ...r, expires: '2099-12-31' })),
  );
  const renewed = await platformRun(['--ignore', 'renewed.yml', '--fail-on', 'critical'], project.path, env());
  assert.equal(renewed.code, 0, renewed.stdout + renewed.stderr);
  assert.match(renewed.stdout, /^ {2}pass {2}no failure of impact critical$/m);

  writeFileSync(join(project.path, 'no-reason.yml'), '- rule: label\n  expires: 2099-12-31\n');
  const bad = await platformRun(['--ignore', 'no-reason.yml'], project.path, env());
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^platform audit run: no-reason\.yml: \[0\]\.reason is required$/m);
});

test('a sign-in step that fails is exit 1 with the step named', async () => {
  const run = await platformRun([], project.path, {
    SITE_PASSWORD: 'not the password',
    AUDIT_PAGE_TIMEOUT_SECONDS: '5',
  });
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr.trim().split('\n').at(-1),
    `platform audit run: the audit failed: sign-in step 5 of 5 (waitForUrl /account) failed: the page did not reach a URL matching "/account" within 5 s; it is at ${site.origin}/login?error=1`,
  );
});

test('usage and configuration mistakes are named: exit 2 for the command line, 1 for the files and the environment', async () => {
  const empty = tempDir('platform-ci-empty-');
  try {
    const cases: Array<[string[], string, number, string, Record<string, string>?]> = [
      [[], empty.path, 2, 'platform: audit run: name the URL to audit, or give it as url in the site file (.a11y.yml)'],
      [['not a url'], empty.path, 2, 'platform: audit run: url must be an absolute http or https URL; got "not a url"'],
      [
        ['http://127.0.0.1:9/', '--fail-on', 'bad'],
        empty.path,
        2,
        'platform: audit run: --fail-on must be one of critical, serious, moderate, minor; got bad',
      ],
      [
        ['http://127.0.0.1:9/', '--min-score', '101'],
        empty.path,
        2,
        'platform: audit run: --min-score must be a whole number from 0 to 100; got 101',
      ],
      [
        ['http://127.0.0.1:9/', '--fail-on-new'],
        empty.path,
        2,
        'platform: audit run: new failures need a baseline: --baseline FILE, or --server with --branch (the last run of the branch) or --baseline-branch',
      ],
      [
        ['http://127.0.0.1:9/', '--baseline-branch', 'main'],
        empty.path,
        2,
        'platform: audit run: --baseline-branch needs --server: only a service keeps past runs; without one, compare with a file (--baseline FILE)',
      ],
      [
        ['--server', 'http://127.0.0.1:9'],
        project.path,
        2,
        'platform: audit run: --server needs an API key: --key KEY or the environment variable AUDIT_KEY',
      ],
      [
        [],
        project.path,
        1,
        'platform audit run: the session uses the secret SITE_PASSWORD: set the environment variable SITE_PASSWORD (a run without --server reads secrets from the environment)',
      ],
      [['--site', 'missing.yml'], empty.path, 1, 'platform audit run: cannot read the site file missing.yml: ENOENT'],
    ];
    writeFileSync(join(empty.path, 'typo.yml'), 'url: http://127.0.0.1:9/\nthresholds:\n  minscore: 90\n');
    cases.push([
      ['--site', 'typo.yml'],
      empty.path,
      1,
      'platform audit run: typo.yml: thresholds.minscore is not a known field',
    ]);
    writeFileSync(join(empty.path, 'impact.yml'), 'url: http://127.0.0.1:9/\nthresholds:\n  failOn: high\n');
    cases.push([
      ['--site', 'impact.yml'],
      empty.path,
      1,
      'platform audit run: impact.yml: thresholds.failOn must be one of "critical", "serious", "moderate", "minor"',
    ]);
    for (const [args, cwd, code, message, extra] of cases) {
      const run = await platformRun(args, cwd, extra ?? {});
      assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(
        run.stderr.split('\n').find((l) => l.startsWith('platform')),
        message,
        args.join(' '),
      );
    }
  } finally {
    empty.remove();
  }
});

test('against a running service: the job runs there, the branch is recorded, and a later run compares with the last run of a branch', async () => {
  const h: AuditHarness = await startAudit({}, 'auditcirun');
  try {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const address = h.app.server.address() as { port: number };
    const server = ['--server', `http://127.0.0.1:${address.port}`];
    const withKey = { AUDIT_KEY: h.key };
    // The signed-out page, as the main branch's run.
    const main = await platformRun([...server, '--site', 'signed-out.yml', '--branch', 'main'], project.path, withKey);
    assert.equal(main.code, 0, main.stdout + main.stderr);
    assert.match(main.stderr, /^queued audit [0-9a-f-]{36} on http:\/\/127\.0\.0\.1:\d+$/m);
    // Signed in on a feature branch: the password comes from the environment and is stored for the key first.
    const feature = await platformRun(
      [...server, '--branch', 'feature', '--baseline-branch', 'main', '--fail-on-new'],
      project.path,
      { ...withKey, ...env() },
    );
    assert.equal(feature.code, 5, feature.stdout + feature.stderr);
    assert.match(feature.stdout, /new failures against the last run of the branch main \([0-9a-f-]{36}, /);
    const stored = await h.call('GET', '/api/v1/secrets');
    assert.deepEqual(
      stored.json().items.map((s: { name: string }) => s.name),
      ['SITE_PASSWORD'],
    );
    // The feature branch again, against its own last run: nothing new.
    const again = await platformRun([...server, '--branch', 'feature', '--fail-on-new'], project.path, {
      ...withKey,
      ...env(),
    });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /^ {2}pass {2}no new failures against the last run of the branch feature /m);
    // A branch with no run yet has nothing to compare with.
    const first = await platformRun([...server, '--branch', 'fresh', '--fail-on-new'], project.path, {
      ...withKey,
      ...env(),
    });
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /no new failures to count: the branch fresh has no completed run of this URL yet/);
    const jobs = (await h.call('GET', '/api/v1/audits?branch=feature')).json().items;
    assert.equal(jobs.length, 2);
    assert.ok(
      jobs.every((j: { branch: string; url: string }) => j.branch === 'feature' && j.url === `${site.origin}/account`),
    );
    // Ignore rules go with the job and the service applies them: the result says which rule hides what.
    const ignoring = await platformRun(
      [...server, '--ignore', 'ignore.yml', '--fail-on', 'critical', '--json'],
      project.path,
      {
        ...withKey,
        ...env(),
      },
    );
    assert.equal(ignoring.code, 4, ignoring.stdout + ignoring.stderr);
    const summary = JSON.parse(ignoring.stdout);
    const job = (await h.call('GET', `/api/v1/audits/${summary.job}`)).json();
    assert.deepEqual(job.config.ignore, IGNORE);
    assert.deepEqual(
      job.result.ignoreRules.map((r: { status: string; matched: number }) => [r.status, r.matched]),
      [
        ['active', 1],
        ['active', 1],
        ['expired', 1],
      ],
    );
    // A failed job on the server is the run's failure.
    const wrong = await platformRun([...server], project.path, { ...withKey, SITE_PASSWORD: 'not the password' });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /^platform audit run: the audit failed: sign-in step 5 of 5 \(waitForUrl \/account\) failed: /m,
    );
  } finally {
    await h.close();
  }
});
