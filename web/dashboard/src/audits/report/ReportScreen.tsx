import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import '../../app/console-screens.css';
import '../audits.css';
import {
  IMPACT_NAMES,
  IMPACT_ORDER,
  STATUS_NAMES,
  auditsApi,
  isActive,
  progressText,
  type ApiRunDetail,
} from '../api.ts';
import { useRefreshWhileActive } from '../runs/useRefreshWhileActive.ts';
import { BestPractices } from './BestPractices.tsx';
import { CompareWith } from './CompareWith.tsx';
import { CriterionGroups } from './CriterionGroups.tsx';
import { Downloads } from './Downloads.tsx';
import { PassedChecks } from './PassedChecks.tsx';
import { ReviewItem } from './ReviewItem.tsx';

/**
 * One run's report in the console: what was audited and how it scored, the report files to download, another run of
 * the same URL to compare with, the failures grouped by WCAG success criterion (each element's markup as text, a deep
 * audit's screenshot of it), the elements a person has to check with the question to answer, the rules that passed,
 * and axe's best-practice results apart from WCAG when the audit asked for them.
 */
export default function ReportScreen({ id }: { id: string }) {
  useScreen('Audit report');
  // One key object per run, so the refresh timer is not restarted by every render.
  const runKey = useMemo(() => keys.audits.run(id), [id]);
  const run = useQuery({
    queryKey: runKey,
    queryFn: ({ signal }) => auditsApi.get<ApiRunDetail>(`/audits/${encodeURIComponent(id)}`, signal),
  });
  useRefreshWhileActive(runKey, run.data ? [run.data] : undefined);
  const r = run.data;
  const result = r?.result;
  return (
    <>
      <p>
        <Link to="auditRuns" {...(r ? { search: { url: r.url } } : {})}>
          {r ? 'Runs of this URL' : 'Runs'}
        </Link>
      </p>
      <h1>Audit report</h1>
      {run.error && (
        <p role="alert" className="error">
          {messageOf(run.error, 'the audit service could not be reached')}
        </p>
      )}
      {r && (
        <>
          <dl className="facts run-facts">
            <dt>URL</dt>
            <dd>
              <SafeLink href={r.url} />
            </dd>
            {r.title && (
              <>
                <dt>Page title</dt>
                <dd className="untrusted">{r.title}</dd>
              </>
            )}
            <dt>Status</dt>
            <dd>
              {STATUS_NAMES[r.status]}
              {isActive(r) && `: ${progressText(r)}`}
              {r.error && ` (${r.error})`}
            </dd>
            <dt>Started</dt>
            <dd>{whenOrNever(r.startedAt ?? r.createdAt)}</dd>
            {r.finishedAt && (
              <>
                <dt>Finished</dt>
                <dd>{whenOrNever(r.finishedAt)}</dd>
              </>
            )}
            <dt>Checked against</dt>
            <dd>
              WCAG {r.config.wcagVersion} level {r.config.wcagLevel}
            </dd>
            {result && (
              <>
                <dt>Score</dt>
                <dd>{result.score} of 100</dd>
                <dt>Pages</dt>
                <dd>
                  {result.stats.totalPages} audited
                  {result.stats.failedPages > 0 && `, ${result.stats.failedPages} could not be`}
                </dd>
                <dt>Failures</dt>
                <dd>
                  {result.stats.totalFindings === 0
                    ? 'None'
                    : IMPACT_ORDER.map((i) => `${result.stats[i]} ${IMPACT_NAMES[i].toLowerCase()}`).join(', ')}
                </dd>
                <dt>Needs review</dt>
                <dd>
                  {result.stats.needsReview} {result.stats.needsReview === 1 ? 'element' : 'elements'} a person has to
                  check
                </dd>
              </>
            )}
          </dl>
          <p role="status" className="status">
            {isActive(r)
              ? `The audit is ${STATUS_NAMES[r.status].toLowerCase()}; the report follows once it completes.`
              : ''}
          </p>
        </>
      )}
      {r && result && (
        <>
          <Downloads id={r.id} />
          <section aria-labelledby="compare-heading">
            <h2 id="compare-heading">Compare</h2>
            <CompareWith run={r} />
          </section>
          {result.pages.length > 1 && (
            <section aria-labelledby="pages-heading">
              <h2 id="pages-heading">Pages</h2>
              <WideTable label="Pages audited">
                <table>
                  <caption>Pages in the order the crawl found them</caption>
                  <thead>
                    <tr>
                      <th scope="col">Page</th>
                      <th scope="col">Title</th>
                      <th scope="col">Score</th>
                      <th scope="col">Failures</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.pages.map((p) => (
                      <tr key={p.url}>
                        <th scope="row">
                          <SafeLink href={p.url} />
                        </th>
                        <td className="untrusted">{p.title ?? ''}</td>
                        <td>{p.score ?? (p.error ? `Not audited: ${p.error}` : '—')}</td>
                        <td>{p.stats.findings}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </WideTable>
            </section>
          )}
          <section aria-labelledby="findings-heading">
            <h2 id="findings-heading">Failures by success criterion</h2>
            {result.findings.length === 0 ? (
              <p>No failure was found.</p>
            ) : (
              <CriterionGroups findings={result.findings} manyPages={result.pages.length > 1} />
            )}
          </section>
          <section aria-labelledby="review-heading">
            <h2 id="review-heading">Needs review</h2>
            {result.needsReview.length === 0 ? (
              <p>Nothing was left for a person to check.</p>
            ) : (
              <>
                <p>The checks could not decide on these elements: a person has to look.</p>
                {result.needsReview.map((n) => (
                  <ReviewItem key={n.id} item={n} showPage={result.pages.length > 1} />
                ))}
              </>
            )}
          </section>
          <section aria-labelledby="passed-heading">
            <h2 id="passed-heading">Passed checks</h2>
            <PassedChecks rules={result.rules} />
          </section>
          {result.bestPractices && <BestPractices best={result.bestPractices} manyPages={result.pages.length > 1} />}
        </>
      )}
    </>
  );
}
