import { useEffect, useRef, useState } from 'react';
import type { ApiRun } from '../api.ts';

/** Quarters of a crawl said aloud: often enough to follow, seldom enough not to drown a screen reader. */
const quarter = (run: ApiRun) =>
  run.progress.pagesMax > 1 ? Math.floor((4 * run.progress.pagesDone) / run.progress.pagesMax) : 0;

function change(before: ApiRun | undefined, now: ApiRun): string | undefined {
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

/**
 * What a polite live region says as the runs shown change: a run starting, ending, or a crawl passing a quarter of its
 * pages; never each page, nor the runs on first showing (the list's own status says how many there are).
 */
export function useRunAnnouncements(runs: ApiRun[] | undefined): string {
  const seen = useRef(new Map<string, ApiRun>());
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!runs) return;
    const lines = runs.map((r) => change(seen.current.get(r.id), r)).filter((l): l is string => l !== undefined);
    for (const r of runs) seen.current.set(r.id, r);
    if (lines.length > 0) setSaid(lines.join(' '));
  }, [runs]);
  return said;
}
