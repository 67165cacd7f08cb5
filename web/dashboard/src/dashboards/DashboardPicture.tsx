import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { ApiWidget } from '../api/types.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { useLook } from '../widgets/useMedia.ts';
import { WidgetView } from '../widgets/WidgetView.tsx';
import { dashboardQuery } from './api.ts';
import { Grid } from './Grid.tsx';
import { savedWidgetLoader } from './loaders.ts';
import { initialValue, queryValues, valueText, valuesFromSearch } from './parameters.ts';

/**
 * A dashboard as a subscription's mail shows it (Grafana's and Metabase's rendered images): its title, the values
 * its parameters were drawn with, as text, and its widgets, with no control, since the mail's reader can press none
 * and the render's credential may change nothing. The values are the address's (`?var-<name>=`), else the defaults,
 * as the mail's CSV takes them; they are read once, when the picture is drawn.
 */
export default function DashboardPicture({ id }: { id: number }) {
  const dashboard = useQuery(dashboardQuery(id));
  const d = dashboard.data?.dashboard;
  useScreen(d?.title ?? 'Dashboard');
  const look = useLook();
  const [drawnAt] = useState(Date.now);
  const [values] = useState(() => valuesFromSearch(location.search));
  const parameters = d?.definition.parameters;
  const render = useMemo(
    () => (w: ApiWidget) => {
      const current = () => queryValues(parameters ?? [], values, drawnAt);
      return (
        <WidgetView
          widget={w}
          load={savedWidgetLoader(id, w, current)}
          scope={`picture:${id}`}
          reloadKey="picture"
          look={look}
          still
        />
      );
    },
    [id, parameters, values, drawnAt, look],
  );

  if (!d)
    return dashboard.error ? (
      <>
        <h1>Dashboard</h1>
        <p role="alert" className="error">
          {messageOf(dashboard.error)}
        </p>
      </>
    ) : (
      <p role="status">Loading the dashboard…</p>
    );
  return (
    <>
      <h1 data-picture>{d.title}</h1>
      {d.description && <p className="description">{d.description}</p>}
      {parameters && parameters.length > 0 && (
        <dl className="picture-values">
          {parameters.map((p) => (
            <div key={p.name}>
              <dt>{p.label ?? p.name}</dt>
              <dd>{valueText(p, values[p.name] ?? initialValue(p), drawnAt)}</dd>
            </div>
          ))}
        </dl>
      )}
      {d.definition.widgets.length === 0 ? (
        <p>This dashboard has no widgets yet.</p>
      ) : (
        <Grid
          widgets={d.definition.widgets}
          columns={d.definition.layout.columns}
          rowHeight={d.definition.layout.rowHeight}
          editing={false}
          still
          render={render}
        />
      )}
    </>
  );
}
