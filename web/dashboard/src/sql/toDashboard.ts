import type { ApiDefinition, ApiWidget } from '../api/types.ts';
import { nextPosition, newWidgetId } from '../dashboards/layout.ts';
import { normalised } from '../dashboards/definition.ts';

/** What the SQL screen hands a dashboard: the statement, its source, how to draw it and the values it ran with. */
export interface ChartDraft {
  title: string;
  type: string;
  dataSourceId: number;
  query: string;
  values: Record<string, string>;
}

/** The names a dashboard's parameters give queries (a time range gives `<name>_from` and `<name>_to`). */
const namesGiven = (d: ApiDefinition) =>
  new Set(
    (d.parameters ?? []).flatMap((p) => (p.type === 'time_range' ? [`${p.name}_from`, `${p.name}_to`] : [p.name])),
  );

/**
 * The definition with the chart added as a widget in the first free place. A `:name` the dashboard does not give yet
 * becomes a text parameter holding the value it ran with, so the widget draws as it did in the editor.
 */
export function withChart(d: ApiDefinition, chart: ChartDraft): { definition: ApiDefinition; widgetId: string } {
  const id = newWidgetId(d.widgets);
  const widget: ApiWidget = {
    id,
    type: chart.type,
    title: chart.title,
    position: nextPosition(d.widgets, d.layout.columns),
    dataSourceId: chart.dataSourceId,
    query: chart.query,
  };
  const given = namesGiven(d);
  const added = Object.entries(chart.values)
    .filter(([name]) => !given.has(name))
    .map(([name, value]) => ({ name, type: 'text' as const, ...(value ? { default: value } : {}) }));
  const parameters = [...(d.parameters ?? []), ...added];
  const dataSources = d.dataSources.some((s) => s.id === chart.dataSourceId)
    ? d.dataSources
    : [...d.dataSources, { id: chart.dataSourceId }];
  const definition = normalised({
    ...d,
    dataSources,
    widgets: [...d.widgets, widget],
    ...(parameters.length > 0 ? { parameters } : {}),
  });
  return { definition, widgetId: id };
}
