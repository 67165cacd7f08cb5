import { useQuery } from '@tanstack/react-query';
import type { ApiDashboardSummary, ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { dataSourcesQuery, recentDashboardsQuery } from '../data/queries.ts';
import { formatDateTime } from '../app/datetime.ts';

const RECENT = 5;

/**
 * Home: the dashboards changed last, as Grafana and Redash open on; and while the tenant has no dashboard yet, the
 * steps from a data source to a first dashboard, each offered only to a role the API lets take it.
 */
export default function HomeScreen({ me }: { me: ApiUser }) {
  useScreen('Home');
  const recent = useQuery(recentDashboardsQuery(RECENT));
  const sources = useQuery(dataSourcesQuery());
  const error = recent.error ?? sources.error;

  return (
    <>
      <h1>Welcome, {me.name}</h1>
      <p>
        You are signed in as {me.email} with the role <strong>{me.role}</strong>.
      </p>
      {error && (
        <p role="alert" className="error">
          The overview could not be loaded: {messageOf(error)}
        </p>
      )}
      {!error &&
        recent.data &&
        sources.data &&
        (recent.data.length > 0 ? (
          <Recent dashboards={recent.data} />
        ) : (
          <GetStarted me={me} sources={sources.data.length} />
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
            <Link to="dashboard" params={{ id: d.id }}>
              {d.title}
            </Link>{' '}
            <span className="hint">changed {formatDateTime(d.updatedAt)}</span>
          </li>
        ))}
      </ul>
      <p>
        <Link to="dashboards">All dashboards</Link>
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
              <Link to="dataSources">data sources</Link>).
            </>
          ) : atLeast(me, 'admin') ? (
            <>
              <Link to="dataSources">Add a data source</Link>: a PostgreSQL or MySQL database, read-only unless you say
              otherwise.
            </>
          ) : (
            <>An admin of your tenant adds a data source: a database to query.</>
          )}
        </li>
        <li>
          {editor ? (
            <>
              <Link to="sql">Try a query in the SQL editor</Link>, and save the ones worth keeping.
            </>
          ) : (
            <>Editors write the queries behind the charts.</>
          )}
        </li>
        <li>
          {editor ? (
            <>
              <Link to="dashboards">Create a dashboard</Link> and add charts, tables and numbers from your queries.
            </>
          ) : (
            <>Dashboards your editors make will be listed here.</>
          )}
        </li>
      </ol>
    </section>
  );
}
