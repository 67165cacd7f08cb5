import { CommandFailure, UsageError, flag, str } from '../../kit/cli-runner.ts';
import type { IgnoreRule } from '../ignore/rules.ts';
import { parseAuditUrl } from '../request/resolve.ts';
import type { RequestedConfig } from '../request/schema.ts';
import { IMPACTS, type Impact } from '../result/types.ts';
import type { Thresholds } from './gate.ts';
import type { SiteFile } from './site-file.ts';

type Values = Parameters<typeof str>[0];

/** Where a run's reports go; each is written only when named. */
export interface ReportFiles {
  result?: string | undefined;
  html?: string | undefined;
  openacr?: string | undefined;
  junit?: string | undefined;
  sarif?: string | undefined;
}

/** One `platform audit run`, its command line and site file taken together. */
export interface RunPlan {
  url: string;
  /** The audit's options as a request gives them (`POST /api/v1/audits`' config). */
  requested: RequestedConfig;
  thresholds: Thresholds;
  baseline: { file?: string | undefined; branch?: string | undefined };
  /** The branch this run audits: recorded with the job on a server, so later runs can compare with it. */
  branch: string | null;
  server: { url: string; key: string } | null;
  reports: ReportFiles;
  /** How long a server's job may take before the run gives up on it. */
  timeoutMs: number;
}

/** CI systems' own variables for the branch being built, when `--branch` is not given. */
const BRANCH_VARIABLES = [
  'GITHUB_HEAD_REF',
  'GITHUB_REF_NAME',
  'CI_COMMIT_REF_NAME',
  'BITBUCKET_BRANCH',
  'BRANCH_NAME',
];

/** Merges the command line over the site file; a missing URL or a contradiction is a usage error. */
export function runPlan(
  values: Values,
  positionals: string[],
  site: SiteFile,
  env: NodeJS.ProcessEnv,
  ignore: IgnoreRule[] = [],
): RunPlan {
  const url = positionals[0] ?? site.url;
  if (!url) throw new UsageError('name the URL to audit, or give it as url in the site file (.a11y.yml)');
  try {
    parseAuditUrl(url);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const server = str(values, 'server');
  const key = str(values, 'key') ?? env.AUDIT_KEY;
  if (server && !key)
    throw new UsageError('--server needs an API key: --key KEY or the environment variable AUDIT_KEY');
  const depth = integer(values, 'depth', 0);
  const maxPages = integer(values, 'max-pages', 1);
  const crawl =
    depth !== undefined || maxPages !== undefined
      ? { ...site.crawl, ...(depth !== undefined ? { depth } : {}), ...(maxPages !== undefined ? { maxPages } : {}) }
      : site.crawl;
  const failOn = str(values, 'fail-on') ?? site.thresholds?.failOn;
  if (failOn !== undefined && !IMPACTS.includes(failOn as Impact))
    throw new UsageError(`--fail-on must be one of ${IMPACTS.join(', ')}; got ${failOn}`);
  const minScore = integer(values, 'min-score', 0, 100) ?? site.thresholds?.minScore;
  const thresholds: Thresholds = {
    minScore,
    failOn: failOn as Impact | undefined,
    newFailures: flag(values, 'fail-on-new') || site.thresholds?.newFailures === true,
  };
  const baseline = {
    file: str(values, 'baseline') ?? site.baseline?.file,
    branch: str(values, 'baseline-branch') ?? site.baseline?.branch,
  };
  if (baseline.file && baseline.branch)
    throw new UsageError('give one baseline: a file (--baseline) or the last run of a branch (--baseline-branch)');
  const branch = str(values, 'branch') ?? BRANCH_VARIABLES.map((v) => env[v]).find((v) => v) ?? null;
  if (baseline.branch && !server)
    throw new UsageError(
      '--baseline-branch needs --server: only a service keeps past runs; without one, compare with a file (--baseline FILE)',
    );
  if (thresholds.newFailures && !baseline.file && !baseline.branch && !(server && branch))
    throw new UsageError(
      'new failures need a baseline: --baseline FILE, or --server with --branch (the last run of the branch) or --baseline-branch',
    );
  const level = str(values, 'level') ?? site.level;
  const version = str(values, 'wcag-version') ?? site.version;
  return {
    url,
    requested: {
      ...(level !== undefined ? { level } : {}),
      ...(version !== undefined ? { version } : {}),
      ...(crawl !== undefined ? { crawl } : {}),
      ...(site.session !== undefined ? { session: site.session } : {}),
      ...(ignore.length > 0 ? { ignore } : {}),
    },
    thresholds,
    baseline,
    branch,
    server: server ? { url: server.replace(/\/+$/, ''), key: key! } : null,
    reports: {
      result: str(values, 'result'),
      html: str(values, 'html'),
      openacr: str(values, 'openacr'),
      junit: str(values, 'junit'),
      sarif: str(values, 'sarif'),
    },
    timeoutMs: (integer(values, 'timeout', 10) ?? 1800) * 1000,
  };
}

function integer(values: Values, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = str(values, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(
      `--${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}; got ${raw}`,
    );
  return Number(raw);
}

/** A request's 400 (a bad option, a refused address) as the CLI's failure, same words. */
export function asCommandFailure(err: unknown): unknown {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 400 ? new CommandFailure((err as Error).message) : err;
}
