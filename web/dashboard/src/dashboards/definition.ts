import type { ApiDefinition, ApiWidget } from '../api/types.ts';

/** A new dashboard: a 12-column grid (Grafana uses 24, Metabase 24; 12 keeps keyboard moves coarse enough to be quick). */
export const emptyDefinition = (): ApiDefinition => ({
  layout: { type: 'grid', columns: 12, rowHeight: 40 },
  dataSources: [],
  widgets: [],
});

/**
 * The definition as saved: `dataSources` lists exactly the sources the widgets' and query parameters' SQL uses
 * (aliases kept), since the service requires each of them to be listed there.
 */
export function normalised(d: ApiDefinition): ApiDefinition {
  const used = [
    ...new Set([
      ...d.widgets.filter((w) => w.query !== undefined && w.dataSourceId !== undefined).map((w) => w.dataSourceId!),
      ...(d.parameters ?? []).filter((p) => p.type === 'query' && p.dataSourceId).map((p) => p.dataSourceId!),
    ]),
  ];
  const dataSources = used.map((id) => d.dataSources.find((s) => s.id === id) ?? { id });
  const widgets: ApiWidget[] = d.widgets.map((w) => {
    // A widget keeps one kind of query: SQL on a source or a saved query.
    if (w.savedQueryId !== undefined) {
      const { query: _q, dataSourceId: _d, ...rest } = w;
      return rest;
    }
    return w;
  });
  return { ...d, dataSources, widgets };
}
