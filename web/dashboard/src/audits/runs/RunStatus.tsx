import { STATUS_NAMES, isActive, progressText, type ApiRun } from '../api.ts';

/** A run's status, and while it runs how far it has got (for a crawl, a progress bar named by its text too). */
export function RunStatus({ run }: { run: ApiRun }) {
  if (!isActive(run))
    return (
      <>
        {STATUS_NAMES[run.status]}
        {run.error && <span className="hint block">{run.error}</span>}
      </>
    );
  const text = progressText(run);
  return (
    <>
      {STATUS_NAMES[run.status]}
      <span className="hint block">{text}</span>
      {run.status === 'running' && run.progress.pagesMax > 1 && (
        <progress max={run.progress.pagesMax} value={run.progress.pagesDone} aria-label={`Progress: ${text}`} />
      )}
    </>
  );
}

/** Failures by impact, in words: "2 critical, 1 serious"; none: "None". */
export function failuresText(run: Pick<ApiRun, 'stats'>): string {
  const s = run.stats;
  if (!s) return '—';
  const parts = (['critical', 'serious', 'moderate', 'minor'] as const)
    .filter((i) => s[i] > 0)
    .map((i) => `${s[i]} ${i}`);
  return parts.length ? parts.join(', ') : 'None';
}
