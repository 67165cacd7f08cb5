import type { DashboardRow } from '../dashboards/store.ts';

type ParameterValue = NonNullable<DashboardRow['definition']['parameters']>[number];

/** A query parameter's SQL and source stay private: a visitor gets it as a text field with its default. */
function publicParameter(p: ParameterValue): ParameterValue {
  if (p.type !== 'query') return p;
  const { query: _q, dataSourceId: _d, ...rest } = p;
  return { ...rest, type: 'text' };
}

/** What a visitor with the link gets: the layout, titles and parameters; no SQL, source or saved query. */
export function publicView(d: DashboardRow) {
  const { layout, parameters, refreshSeconds, widgets } = d.definition;
  return {
    title: d.title,
    ...(d.description !== null ? { description: d.description } : {}),
    updatedAt: d.updated_at.toISOString(),
    definition: {
      layout,
      ...(parameters ? { parameters: parameters.map(publicParameter) } : {}),
      ...(refreshSeconds !== undefined ? { refreshSeconds } : {}),
      widgets: widgets.map((w) => ({
        id: w.id,
        type: w.type,
        position: w.position,
        ...(w.title !== undefined ? { title: w.title } : {}),
        ...(w.options !== undefined ? { options: w.options } : {}),
        // A click sets a parameter the visitor may set anyway, or opens the editor's link: neither reveals SQL.
        ...(w.click !== undefined ? { click: w.click } : {}),
        runs: w.query !== undefined || w.savedQueryId !== undefined,
      })),
    },
  };
}
