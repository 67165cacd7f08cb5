import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/client.ts';
import type { ApiWidget } from '../api/types.ts';
import { PUBLIC_PRODUCT, useScreen } from '../app/useTitle.ts';
import { Grid } from '../dashboards/Grid.tsx';
import { ActiveFilters, useClickActions } from '../dashboards/ClickFilters.tsx';
import { ParametersBar } from '../dashboards/ParametersBar.tsx';
import { queryValues } from '../dashboards/parameters.ts';
import { useLook } from '../widgets/useMedia.ts';
import { WidgetView } from '../widgets/WidgetView.tsx';
import { keys } from '../data/keys.ts';
import { loadPublic, runPublicWidget } from './api.ts';
import { formatDateTime } from '../app/datetime.ts';

/** Why the link shows nothing: turned off or never a link (404, or a token of the wrong shape: 400), or the service. */
function problemOf(err: unknown): string {
  if (err instanceof ApiError && (err.status === 404 || err.status === 400))
    return 'This link does not open a dashboard: it was turned off, or the address is incomplete. Ask whoever shared it for a new link.';
  return err instanceof ApiError
    ? err.message
    : 'The service cannot be reached. Check your connection and reload the page.';
}

/**
 * A dashboard opened by its public link (`/public/<token>`): no sign-in, read-only. The visitor sets the parameters
 * and the charts follow; the saved auto-refresh runs while the tab is visible (a wall display's use).
 */
export default function PublicDashboard({ token }: { token: string }) {
  const shared = useQuery({
    queryKey: keys.publicDashboard(token),
    queryFn: ({ signal }) => loadPublic(token, signal),
  });
  const dashboard = shared.data;
  const problem = !dashboard && shared.error ? problemOf(shared.error) : '';
  const [values, setValues] = useState<Record<string, string>>({});
  const [tick, setTick] = useState(0);
  const [status, setStatus] = useState('');
  const look = useLook();
  useScreen(dashboard?.title ?? (problem ? 'Link not available' : 'Loading'), PUBLIC_PRODUCT);

  const refresh = dashboard?.definition.refreshSeconds ?? 0;
  useEffect(() => {
    if (!refresh) return;
    const timer = setInterval(() => {
      if (!document.hidden) setTick((t) => t + 1);
    }, refresh * 1000);
    return () => clearInterval(timer);
  }, [refresh]);

  const parameters = dashboard?.definition.parameters ?? [];
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const valuesKey = JSON.stringify(values);
  // A visitor may set the parameters, so a click may too (and open the editors' links); the address keeps no values here.
  const clickOf = useClickActions(parameters, setValues, setStatus);
  const render = useMemo(
    () => (w: ApiWidget & { runs?: boolean }) => {
      const load = w.runs
        ? (signal: AbortSignal, refresh?: boolean) =>
            runPublicWidget(token, w.id, queryValues(parameters, valuesRef.current), signal, refresh)
        : undefined;
      return (
        <WidgetView
          widget={w}
          load={load}
          scope={`public:${token}`}
          reloadKey={`${tick}|${valuesKey}`}
          look={look}
          click={clickOf(w)}
        />
      );
    },
    [token, tick, valuesKey, look, parameters, clickOf],
  );

  if (problem)
    return (
      <>
        <h1>Link not available</h1>
        <p role="alert">{problem}</p>
      </>
    );
  if (!dashboard) return <p role="status">Loading the dashboard…</p>;
  const d = dashboard.definition;
  return (
    <>
      <h1>{dashboard.title}</h1>
      {dashboard.description && <p className="description">{dashboard.description}</p>}
      <p className="hint">Shared by link: read-only. Last changed {formatDateTime(dashboard.updatedAt)}.</p>
      <ParametersBar parameters={parameters} values={values} onChange={setValues} />
      <ActiveFilters
        parameters={parameters}
        widgets={d.widgets}
        values={values}
        onClear={(name) => {
          setValues(({ [name]: _cleared, ...rest }) => rest);
          setStatus('Filter cleared.');
        }}
      />
      <p role="status" className="status">
        {status}
      </p>
      {d.widgets.length === 0 ? (
        <p>This dashboard has no widgets yet.</p>
      ) : (
        <Grid
          widgets={d.widgets}
          columns={d.layout.columns}
          rowHeight={d.layout.rowHeight}
          editing={false}
          render={render}
        />
      )}
    </>
  );
}
