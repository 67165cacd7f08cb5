import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiQueryResult } from '../api/types.ts';
import { navigate } from '../app/router.tsx';
import { createDashboard, dashboardQuery, dashboardsQuery, saveDashboard, titleSlug } from '../dashboards/api.ts';
import { emptyDefinition } from '../dashboards/definition.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { WIDGET_TYPES } from '../widgets/data.ts';
import { useLook } from '../widgets/useMedia.ts';
import { WidgetView } from '../widgets/WidgetView.tsx';
import { withChart, type ChartDraft } from './toDashboard.ts';

const KINDS = WIDGET_TYPES.filter((t) => t.value !== 'text');
const RECENT = { page: 1, perPage: 100, search: '', sort: 'updated_at', order: 'desc' } as const;

/**
 * "Make a chart" from the editor's result: the chart is drawn here from the rows already read (no second run), then
 * put on a new dashboard or one that exists, which opens with it.
 */
export function ChartFromResult({
  result,
  draft,
}: {
  result: ApiQueryResult;
  draft: Omit<ChartDraft, 'title' | 'type'>;
}) {
  const client = useQueryClient();
  const look = useLook();
  const [type, setType] = useState<string>('bar');
  const [title, setTitle] = useState('New chart');
  const [target, setTarget] = useState<'new' | 'existing'>('new');
  const [dashboardTitle, setDashboardTitle] = useState('');
  const dashboards = useQuery({ ...dashboardsQuery({ ...RECENT }), enabled: target === 'existing' });
  const [chosen, setChosen] = useState<number>();
  const existingId = chosen ?? dashboards.data?.data[0]?.id;
  const chart = { ...draft, title, type };

  const put = useMutation({
    mutationFn: async (): Promise<number> => {
      if (target === 'new') {
        const { definition } = withChart(emptyDefinition(), chart);
        const created = await createDashboard({ title: dashboardTitle, slug: titleSlug(dashboardTitle), definition });
        return created.id;
      }
      if (existingId === undefined) throw new Error('choose a dashboard');
      // The dashboard as it is now (someone may have changed it): its ETag guards the save.
      const loaded = await client.fetchQuery({ ...dashboardQuery(existingId), staleTime: 0 });
      const { definition } = withChart(loaded.dashboard.definition, chart);
      const saved = await saveDashboard(existingId, loaded.etag, { definition });
      client.setQueryData(keys.dashboards.one(existingId), saved);
      return existingId;
    },
    onSuccess: async (id) => {
      await client.invalidateQueries({ queryKey: keys.dashboards.lists });
      navigate('dashboard', { id });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    put.mutate();
  };
  const preview = { id: 'preview', type, title, position: { x: 0, y: 0, w: 6, h: 6 } };

  return (
    <form className="form chart-from-result" onSubmit={submit} aria-labelledby="cfr-title">
      <h2 id="cfr-title">Make a chart</h2>
      <label htmlFor="cfr-kind">Chart kind</label>
      <select id="cfr-kind" value={type} onChange={(e) => setType(e.target.value)}>
        {KINDS.map((k) => (
          <option key={k.value} value={k.value}>
            {k.label}
          </option>
        ))}
      </select>
      <label htmlFor="cfr-name">Chart title</label>
      <input id="cfr-name" required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
      <div className="widget chart-preview">
        <WidgetView
          widget={preview}
          load={async () => result}
          scope="sql-preview"
          reloadKey={String(result.executionTimeMs) + result.rowCount}
          look={look}
        />
      </div>
      <fieldset>
        <legend>Put it on</legend>
        <label className="check">
          <input type="radio" name="cfr-target" checked={target === 'new'} onChange={() => setTarget('new')} />A new
          dashboard
        </label>
        <label className="check">
          <input
            type="radio"
            name="cfr-target"
            checked={target === 'existing'}
            onChange={() => setTarget('existing')}
          />
          A dashboard that exists
        </label>
      </fieldset>
      {target === 'new' ? (
        <>
          <label htmlFor="cfr-dashboard-title">New dashboard's title</label>
          <input
            id="cfr-dashboard-title"
            required
            maxLength={200}
            value={dashboardTitle}
            onChange={(e) => setDashboardTitle(e.target.value)}
          />
        </>
      ) : (
        <>
          <label htmlFor="cfr-dashboard">Dashboard</label>
          <select
            id="cfr-dashboard"
            required
            value={existingId ?? ''}
            onChange={(e) => setChosen(Number(e.target.value))}
          >
            {dashboards.data?.data.map((d) => (
              <option key={d.id} value={d.id}>
                {d.title}
              </option>
            ))}
          </select>
          {dashboards.data?.data.length === 0 && <p className="hint">There is no dashboard yet: make a new one.</p>}
        </>
      )}
      <div role="alert" className="error">
        {put.error ? messageOf(put.error) : dashboards.error ? messageOf(dashboards.error) : ''}
      </div>
      <div className="actions">
        <button type="submit" disabled={put.isPending || (target === 'existing' && existingId === undefined)}>
          Add to dashboard
        </button>
      </div>
    </form>
  );
}
