import { CommandFailure, type Command } from '../../kit/cli-runner.ts';
import type { AuditServiceConfig } from '../config.ts';
import { AuditFailedError } from '../engine/audit-errors.ts';
import type { AuditResult } from '../result/types.ts';
import { resolveSession, secretNames } from '../session/resolve.ts';
import { loadBaseline } from './baseline.ts';
import { readIgnoreFile } from './ignore-file.ts';
import { evaluateGate } from './gate.ts';
import { runLocally } from './local-run.ts';
import { asCommandFailure, runPlan, type RunPlan } from './plan.ts';
import { AuditServer } from './remote-run.ts';
import { writeReports } from './reports.ts';
import { readSiteFile } from './site-file.ts';
import { summaryLines } from './summary.ts';

/**
 * `platform audit run [URL]`: the CI gate. Audits against a running service (`--server`) or in this process, writes
 * the reports asked for, prints a summary for the CI log and exits with the threshold that failed.
 */
export function runCommand(config: AuditServiceConfig): Command {
  return {
    path: ['run'],
    synopsis: '[URL] [--site FILE] [--server URL] [threshold, baseline and report options]',
    summary: 'audit a site for CI: thresholds decide the exit code; JSON, HTML, OpenACR, JUnit, SARIF reports',
    details: [
      'URL                    the page to audit (else url in the site file)',
      '--site FILE            the site file (YAML or JSON; default .a11y.yml, .a11y.yaml or .a11y.json if present)',
      '--server URL           audit on this audit service (a job); without it, in this process with its own browser',
      '--key KEY              the API key for --server (default: the environment variable AUDIT_KEY)',
      '--level A|AA|AAA, --wcag-version 2.0|2.1|2.2, --depth N, --max-pages N   the audit (--depth or --max-pages crawls)',
      '--min-score N          fail (exit 3) when the score is below N (0-100)',
      '--fail-on IMPACT       fail (exit 4) on any failure of this impact or worse: critical, serious, moderate, minor',
      '--fail-on-new          fail (exit 5) on failures the baseline does not have (ignored ones are not counted)',
      '--baseline FILE        the baseline: a result written by --result (or the service JSON report)',
      '--baseline-branch B    the baseline: the last completed run of branch B on the server',
      '--ignore FILE          ignore rules (default .a11y-ignore.yml if present): rule, selector, url, reason, expires',
      '--branch B             the branch this run audits (default from GITHUB_REF_NAME, CI_COMMIT_REF_NAME, …);',
      '                       on a server, later runs compare with it; alone with --fail-on-new, its own last run',
      '--result FILE, --html FILE, --openacr FILE(.yaml|.json), --junit FILE, --sarif FILE   write the reports',
      '--timeout SECONDS      how long a server job may take (default 1800)',
      'Exit codes: 0 passed, 1 the audit could not run, 2 usage, 3 score, 4 impact, 5 new failures (several: the lowest).',
    ],
    options: {
      site: { type: 'string' },
      server: { type: 'string' },
      key: { type: 'string' },
      level: { type: 'string' },
      'wcag-version': { type: 'string' },
      depth: { type: 'string' },
      'max-pages': { type: 'string' },
      'min-score': { type: 'string' },
      'fail-on': { type: 'string' },
      'fail-on-new': { type: 'boolean' },
      baseline: { type: 'string' },
      ignore: { type: 'string' },
      'baseline-branch': { type: 'string' },
      branch: { type: 'string' },
      result: { type: 'string' },
      html: { type: 'string' },
      openacr: { type: 'string' },
      junit: { type: 'string' },
      sarif: { type: 'string' },
      timeout: { type: 'string' },
    },
    positionals: { min: 0, max: 1 },
    async run({ values, positionals, io, json, result: print }) {
      const site = readSiteFile(typeof values.site === 'string' ? values.site : undefined);
      if (site.path && !json) io.err(`site file: ${site.path}`);
      const ignore = readIgnoreFile(typeof values.ignore === 'string' ? values.ignore : site.file.ignore);
      if (ignore.path && !json) io.err(`ignore file: ${ignore.path} (${ignore.rules.length} rules)`);
      const plan = runPlan(values, positionals, site.file, process.env, ignore.rules);
      const server = plan.server ? new AuditServer(plan.server) : null;
      const { baseline, missing } = await loadBaseline(plan, server);
      const audited = await audit(plan, server, config, io);
      const gate = evaluateGate(audited.result, plan.thresholds, baseline, missing);
      const written = writeReports(audited.result, gate, plan.reports, {
        authorName: config.openAcrAuthorName,
        authorEmail: config.openAcrAuthorEmail,
      });
      print(
        {
          passed: gate.exitCode === 0,
          exitCode: gate.exitCode,
          url: audited.result.url,
          job: audited.job,
          score: audited.result.score,
          stats: audited.result.stats,
          checks: gate.checks,
          reports: written,
        },
        summaryLines(audited.result, gate, written),
      );
      return gate.exitCode;
    },
  };
}

/** The audit where the plan says: a job on the server, or this process; a failed audit is the run's failure (exit 1). */
async function audit(
  plan: RunPlan,
  server: AuditServer | null,
  config: AuditServiceConfig,
  io: Parameters<Command['run']>[0]['io'],
): Promise<{ result: AuditResult; job: string | null }> {
  if (server) {
    let names: string[];
    try {
      names = secretNames(resolveSession(plan.requested.session));
    } catch (err) {
      throw asCommandFailure(err);
    }
    await server.storeSecrets(names, process.env);
    const done = await server.audit(plan, (id) => io.err(`queued audit ${id} on ${plan.server!.url}`));
    return { result: done.result, job: done.id };
  }
  try {
    return { result: await runLocally(plan, config, io), job: null };
  } catch (err) {
    if (err instanceof AuditFailedError) throw new CommandFailure(`the audit failed: ${err.message}`);
    throw err;
  }
}
