import { useEffect, useState } from 'react';
import { ApiError, get } from '../api/client.ts';
import type { ApiDashboardSummary, ApiDataSource, ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';

const RECENT = 5;
const when = (iso: string) => new Date(iso).toLocaleString();

interface Overview {
  recent: ApiDashboardSummary[];
  sources: number;
}

/**
 * Home: the dashboards changed last, as Grafana and Redash open on; and while the tenant has no dashboard yet, the
 * steps from a data source to a first dashboard, each offered only to a role the API lets take it.
 */
export function HomeScreen({ me }: { me: ApiUser }) {
  useScreen('Home');
  const [overview, setOverview] = useState<Overview>();
  const [error, setError] = useState('');

  useEffect(() => {
    const abort = new AbortController();
    Promise.all([
      get<{ data: ApiDashboardSummary[] }>(
        `/dashboards?page=1&perPage=${RECENT}&sort=updated_at&order=desc`,
        abort.signal,
      ),
      get<{ dataSources: ApiDataSource[] }>('/datasources', abort.signal),
    ]).then(
      ([dashboards, sources]) => setOverview({ recent: dashboards.data, sources: sources.dataSources.length }),
      (err: unknown) => {
        if (!abort.signal.aborted) setError(err instanceof ApiError ? err.message : 'the service could not be reached');
      },
    );
    return () => abort.abort();
  }, []);

  return (
    <>
      <h1>Welcome, {me.name}</h1>
      <p>
        You are signed in as {me.email} with the role <strong>{me.role}</strong>.
      </p>
      {error && (
        <p role="alert" className="error">
          The overview could not be loaded: {error}
        </p>
      )}
      {overview &&
        (overview.recent.length > 0 ? (
          <Recent dashboards={overview.recent} />
        ) : (
          <GetStarted me={me} sources={overview.sources} />
        ))}
    </>
  );
}

function Recent({ dashboards }: { dashboards: ApiDashboardSummary[] }) {
  return (
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Recently changed dashboards</h2>
      <ul className="plain-list">
        {dashboards.map((d) => (
          <li key={d.id}>
            <Link href={`/dashboards/${d.id}`}>{d.title}</Link>{' '}
            <span className="hint">changed {when(d.updatedAt)}</span>
          </li>
        ))}
      </ul>
      <p>
        <Link href="/dashboards">All dashboards</Link>
      </p>
    </section>
  );
}

function GetStarted({ me, sources }: { me: ApiUser; sources: number }) {
  const editor = atLeast(me, 'editor');
  return (
    <section aria-labelledby="start-title">
      <h2 id="start-title">Get started</h2>
      <ol className="steps">
        <li>
          {sources > 0 ? (
            <>
              Done: {sources} {sources === 1 ? 'data source' : 'data sources'} to query (
              <Link href="/datasources">data sources</Link>).
            </>
          ) : atLeast(me, 'admin') ? (
            <>
              <Link href="/datasources">Add a data source</Link>: a PostgreSQL or MySQL database, read-only unless you
              say otherwise.
            </>
          ) : (
            <>An admin of your tenant adds a data source: a database to query.</>
          )}
        </li>
        <li>
          {editor ? (
            <>
              <Link href="/sql">Try a query in the SQL editor</Link>, and save the ones worth keeping.
            </>
          ) : (
            <>Editors write the queries behind the charts.</>
          )}
        </li>
        <li>
          {editor ? (
            <>
              <Link href="/dashboards">Create a dashboard</Link> and add charts, tables and numbers from your queries.
            </>
          ) : (
            <>Dashboards your editors make will be listed here.</>
          )}
        </li>
      </ol>
    </section>
  );
}
