import { useQuery } from '@tanstack/react-query';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import '../../app/console-screens.css';
import '../audits.css';
import { auditsApi, runDate, type ApiComparison, type Finding } from '../api.ts';
import { FindingItem } from '../report/FindingItem.tsx';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function Part({ id, title, findings, none }: { id: string; title: string; findings: Finding[]; none: string }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>
        {title} ({findings.length})
      </h2>
      {findings.length === 0 ? (
        <p>{none}</p>
      ) : (
        findings.map((f) => <FindingItem key={f.id} finding={f} level={3} showPage />)
      )}
    </section>
  );
}

/**
 * Two runs of one URL side by side: the failures new in the later run, those it fixed and those that remain, matched
 * by rule, page and element as the CI gate matches them.
 */
export default function CompareScreen({ id, baseId }: { id: string; baseId: string }) {
  useScreen('Compare runs');
  const diff = useQuery({
    queryKey: keys.audits.comparison(id, baseId),
    queryFn: ({ signal }) =>
      auditsApi.get<ApiComparison>(`/audits/${encodeURIComponent(id)}/compare/${encodeURIComponent(baseId)}`, signal),
  });
  const d = diff.data;
  return (
    <>
      <p>
        <Link to="auditRuns" {...(d ? { search: { url: d.run.url } } : {})}>
          {d ? 'Runs of this URL' : 'Runs'}
        </Link>
      </p>
      <h1>Compare runs</h1>
      {diff.error && (
        <p role="alert" className="error">
          {messageOf(diff.error, 'the audit service could not be reached')}
        </p>
      )}
      {d && (
        <>
          <dl className="facts run-facts">
            <dt>URL</dt>
            <dd>
              <SafeLink href={d.run.url} />
            </dd>
            <dt>This run</dt>
            <dd>
              <Link to="auditReport" params={{ id: d.run.id }}>
                {runDate(d.run)}
              </Link>
              , score {d.run.score}
            </dd>
            <dt>Compared with</dt>
            <dd>
              <Link to="auditReport" params={{ id: d.base.id }}>
                {runDate(d.base)}
              </Link>
              , score {d.base.score}
            </dd>
          </dl>
          <p role="status" className="status">
            {`${plural(d.added.length, 'new failure', 'new failures')}, ${plural(d.fixed.length, 'fixed', 'fixed')}, ${plural(d.remaining.length, 'remaining', 'remaining')}.`}
          </p>
          <Part id="added-heading" title="New failures" findings={d.added} none="No failure is new in this run." />
          <Part id="fixed-heading" title="Fixed" findings={d.fixed} none="No failure of the earlier run is fixed." />
          <Part
            id="remaining-heading"
            title="Remaining"
            findings={d.remaining}
            none="No failure of the earlier run remains."
          />
        </>
      )}
    </>
  );
}
