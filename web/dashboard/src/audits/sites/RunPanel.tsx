import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { messageOf } from '../../data/errors.ts';
import { sitesApi, siteKeys, type ApiSite } from './api.ts';
import { STATUS_TEXT, pagesText, when } from './format.ts';

type Run = NonNullable<ApiSite['latestRun']>;

/** What the live region says of a run: it changes with the run's status only, not with each page. */
function announcement(run: Run | null): string {
  if (!run) return '';
  switch (run.status) {
    case 'pending':
      return 'The run is queued.';
    case 'running':
      return 'The run is under way.';
    case 'completed':
      return `The run completed: score ${run.score ?? 'unknown'}, ${pagesText(run)} audited.`;
    case 'failed':
      return `The run failed: ${run.error ?? 'no reason given'}.`;
    default:
      return 'The run was cancelled.';
  }
}

/**
 * Run now, and the latest run: its status, its pages done of its page limit (a progress bar, read again every second
 * while it runs), then its score. A polite live region says only when the status changes, not at every page.
 */
export function RunPanel({ site }: { site: ApiSite }) {
  const client = useQueryClient();
  const heading = useId();
  const run = site.latestRun;
  const busy = run?.status === 'pending' || run?.status === 'running';
  const start = useMutation({
    mutationFn: () => sitesApi.call<{ id: string }>('POST', `/sites/${encodeURIComponent(site.id)}/runs`),
    onSettled: () => client.invalidateQueries({ queryKey: siteKeys.all }),
  });
  return (
    <section aria-labelledby={heading} className="site-panel">
      <h2 id={heading}>Latest run</h2>
      <div className="actions">
        <button type="button" disabled={busy || start.isPending} onClick={() => start.mutate()}>
          Run now
        </button>
      </div>
      {start.error && (
        <p role="alert" className="error">
          {messageOf(start.error, 'the audit service could not be reached')}
        </p>
      )}
      <p role="status" className="status">
        {announcement(run)}
      </p>
      {!run && <p>This site has not been audited yet.</p>}
      {run && (
        <>
          <dl className="facts site-facts">
            <dt>Status</dt>
            <dd>{STATUS_TEXT[run.status]}</dd>
            <dt>Queued</dt>
            <dd>{when(run.createdAt)}</dd>
            {run.finishedAt && (
              <>
                <dt>Finished</dt>
                <dd>{when(run.finishedAt)}</dd>
              </>
            )}
            {run.score !== null && (
              <>
                <dt>Score</dt>
                <dd>{run.score}</dd>
              </>
            )}
            {run.error && (
              <>
                <dt>Why it failed</dt>
                <dd>{run.error}</dd>
              </>
            )}
          </dl>
          <div className="site-progress">
            <label htmlFor={`${heading}-progress`}>Pages audited: {pagesText(run)}</label>
            <progress id={`${heading}-progress`} max={Math.max(run.pagesTotal, 1)} value={run.pagesDone} />
          </div>
        </>
      )}
    </section>
  );
}
