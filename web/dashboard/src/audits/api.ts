import { serviceClient } from '../console/client.ts';
import { formatInstant } from '../app/datetime.ts';

export type {
  ApiAuditKey,
  ApiComparison,
  ApiCreatedAuditKey,
  ApiRun,
  AuditResult,
  Finding,
  Impact,
  NeedsReviewItem,
  RuleOutcome,
} from '../../../../src/audit/api-types.ts';
import type { ApiRun, AuditResult, Impact } from '../../../../src/audit/api-types.ts';

/**
 * The audit service's API as the Audits section calls it: `<audit>/api/v1` with the console's token (its `audits`
 * scope). Everything an audited site wrote (titles, URLs, markup, selectors) comes back in these answers: the screens
 * show it as text only, and links to it only through SafeLink.
 */
export const auditsApi = serviceClient('audits');

/** A run as `GET /audits/{id}` answers it: with its result once completed. */
export type ApiRunDetail = ApiRun & { result?: AuditResult };

export const IMPACT_ORDER: readonly Impact[] = ['critical', 'serious', 'moderate', 'minor'];
export const IMPACT_NAMES: Record<Impact, string> = {
  critical: 'Critical',
  serious: 'Serious',
  moderate: 'Moderate',
  minor: 'Minor',
};

export const STATUS_NAMES: Record<ApiRun['status'], string> = {
  pending: 'Waiting',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Whether a run may still change: the list and a report keep reading it while so. */
export const isActive = (run: Pick<ApiRun, 'status'>) => run.status === 'pending' || run.status === 'running';

/** How far a running audit has got, in words. */
export function progressText(run: ApiRun): string {
  const { pagesDone, pagesMax } = run.progress;
  if (run.status === 'pending') return 'Waiting to start';
  if (pagesMax === 1) return pagesDone === 0 ? 'Auditing the page' : 'Finishing';
  return `${pagesDone} of at most ${pagesMax} pages`;
}

/**
 * A short name for a run in lists and headings: its date to the second (CI may run twice a minute), never text from
 * the audited site.
 */
export const runDate = (run: Pick<ApiRun, 'createdAt' | 'finishedAt'>) =>
  formatInstant(run.finishedAt ?? run.createdAt);
