import type { ApiRun } from '../../../../../src/audit/api-types.ts';

/** Quarters of a crawl said aloud: often enough to follow, seldom enough not to drown a screen reader. */
const quarter = (run: ApiRun) =>
  run.progress.pagesMax > 1 ? Math.floor((4 * run.progress.pagesDone) / run.progress.pagesMax) : 0;

/**
 * What a live region says about a run read again: that it started, ended (with its score) or passed a quarter of a
 * crawl's pages; nothing for a run seen the first time, nor for a page recorded within the same quarter.
 */
export function announcement(before: ApiRun | undefined, now: ApiRun): string | undefined {
  if (!before) return undefined;
  if (before.status !== now.status) {
    if (now.status === 'running') return `The audit of ${now.url} started.`;
    if (now.status === 'completed') return `The audit of ${now.url} completed: score ${now.score}.`;
    if (now.status === 'failed') return `The audit of ${now.url} failed.`;
    if (now.status === 'cancelled') return `The audit of ${now.url} was cancelled.`;
    return undefined;
  }
  if (now.status === 'running' && quarter(now) > quarter(before))
    return `The audit of ${now.url}: ${now.progress.pagesDone} of at most ${now.progress.pagesMax} pages.`;
  return undefined;
}
