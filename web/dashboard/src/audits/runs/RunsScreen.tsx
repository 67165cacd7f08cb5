import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { replaceWith, Link } from '../../app/router.tsx';
import { hrefTo } from '../../app/routes.ts';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { STATUS_NAMES, auditsApi, runDate, type ApiRun } from '../api.ts';
import '../../app/console-screens.css';
import '../audits.css';
import { useRunAnnouncements } from './announce.ts';
import { RunStatus, failuresText } from './RunStatus.tsx';
import { TrendPanel } from './TrendPanel.tsx';
import { useRefreshWhileActive } from './useRefreshWhileActive.ts';

type Status = ApiRun['status'] | '';

/**
 * The audit runs (jobs) of the person, newest first, a page at a time: when, which URL, the page's title, status (with
 * progress while running, read again until it ends), score and failures by impact. `?url=` shows one URL's runs (the
 * sites screen links here) with its trend over time.
 */
export default function RunsScreen() {
  useScreen('Runs');
  const [typed, setTyped] = useState(() => new URLSearchParams(location.search).get('url') ?? '');
  const [url, setUrl] = useState<string | undefined>(() => typed.trim() || undefined);
  const [status, setStatus] = useState<Status>('');
  const pages = useCursorPages<ApiRun>(
    keys.audits.runs,
    '/audits',
    { url, status: status || undefined },
    25,
    auditsApi.get,
  );
  const client = useQueryClient();
  useRefreshWhileActive(keys.audits.runs, pages.items, true);
  const said = useRunAnnouncements(pages.items);
  const show = (next: string | undefined) => {
    setTyped(next ?? '');
    setUrl(next);
    replaceWith(hrefTo('auditRuns', undefined, next ? { url: next } : undefined));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    show(typed.trim() || undefined);
  };
  const count = pages.items?.length;

  return (
    <>
      <h1>Runs</h1>
      <p className="description">
        Every audit run, newest first: its score and failures by impact once completed, how far it has got while it runs
        (read again every few seconds). Runs started elsewhere, by CI, appear within half a minute, or on Refresh.
      </p>
      <search aria-label="Runs">
        <form className="filters-bar" onSubmit={submit}>
          <div className="field">
            <label htmlFor="runs-url">URL</label>
            <input
              id="runs-url"
              type="text"
              inputMode="url"
              maxLength={2048}
              aria-describedby="runs-url-hint"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
            <span id="runs-url-hint" className="hint">
              The address audited, in full; empty for every URL
            </span>
          </div>
          <div className="field">
            <label htmlFor="runs-status">Status</label>
            <select id="runs-status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
              <option value="">Every status</option>
              {(Object.keys(STATUS_NAMES) as ApiRun['status'][]).map((s) => (
                <option key={s} value={s}>
                  {STATUS_NAMES[s]}
                </option>
              ))}
            </select>
          </div>
          <div className="actions">
            <button type="submit">Show runs</button>
            {url && (
              <button type="button" className="secondary" onClick={() => show(undefined)}>
                Every URL
              </button>
            )}
            <button
              type="button"
              className="secondary"
              onClick={() => void client.invalidateQueries({ queryKey: keys.audits.runs })}
            >
              Refresh
            </button>
          </div>
        </form>
      </search>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? url
              ? 'No run of this URL.'
              : 'No run yet.'
            : `${count} run${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}${url ? ' of this URL' : ''}.`}
      </p>
      <p role="status" className="status" aria-atomic="true">
        {said}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the audit service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Runs">
          <table className="runs">
            <caption>{url ? 'Runs of this URL, newest first' : 'Runs, newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">URL and page title</th>
                <th scope="col">Status</th>
                <th scope="col">Score</th>
                <th scope="col">Failures</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((run) => (
                <tr key={run.id}>
                  <th scope="row">
                    <Link to="auditReport" params={{ id: run.id }}>
                      {runDate(run)}
                    </Link>
                  </th>
                  <td>
                    {url ? (
                      <span className="untrusted">{run.url}</span>
                    ) : (
                      <button
                        type="button"
                        className="link"
                        aria-label={`Only runs of ${run.url}`}
                        onClick={() => show(run.url)}
                      >
                        <span className="untrusted">{run.url}</span>
                      </button>
                    )}
                    {run.title && <span className="hint block untrusted">{run.title}</span>}
                  </td>
                  <td>
                    <RunStatus run={run} />
                  </td>
                  <td>{run.score ?? '—'}</td>
                  <td>{failuresText(run)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Runs" />
      {url && <TrendPanel url={url} />}
    </>
  );
}
