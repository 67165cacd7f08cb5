import { useQuery } from '@tanstack/react-query';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { sitesQuery } from './api.ts';
import { STATUS_TEXT, scheduleText, when } from './format.ts';
import './sites.css';

/**
 * The Audits section's sites (pa11y-dashboard's task list): each site's name, URL, last score, last run and schedule,
 * by name. A site opens its page (run now, schedule, notices); "Add site" asks its URL and settings.
 */
export default function SitesScreen() {
  useScreen('Sites');
  const sites = useQuery(sitesQuery());
  const count = sites.data?.length;
  return (
    <>
      <h1>Sites</h1>
      <div className="toolbar">
        <Link to="auditSiteNew" className="button">
          Add site
        </Link>
      </div>
      <p role="status" className="status">
        {count === undefined ? '' : count === 0 ? 'No site yet.' : `${count} site${count === 1 ? '' : 's'}.`}
      </p>
      {sites.error && (
        <p role="alert" className="error">
          {messageOf(sites.error, 'the audit service could not be reached')}
        </p>
      )}
      {count === 0 && (
        <p className="hint">
          A site is a page audited again and again with the same settings: run it when you like, on a schedule, and be
          told when it gets worse.
        </p>
      )}
      {sites.data && sites.data.length > 0 && (
        <WideTable label="Sites">
          <table>
            <caption>Sites, by name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Last score</th>
                <th scope="col">Last run</th>
                <th scope="col">Schedule</th>
              </tr>
            </thead>
            <tbody>
              {sites.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    <Link to="auditSite" params={{ id: s.id }}>
                      {s.name}
                    </Link>
                  </th>
                  <td className="site-url">
                    <SafeLink href={s.url} />
                  </td>
                  <td>{s.lastCompleted?.score ?? 'none yet'}</td>
                  <td>
                    {s.latestRun
                      ? `${STATUS_TEXT[s.latestRun.status]}, ${when(s.latestRun.finishedAt ?? s.latestRun.createdAt)}`
                      : 'Never run'}
                  </td>
                  <td>{scheduleText(s.schedule)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </>
  );
}
