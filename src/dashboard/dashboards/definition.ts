import { Type, type Static } from 'typebox';
import { validation } from '../errors.ts';
import { checkClick, Click } from './click.ts';
import { timeRangeProblem } from './time-range.ts';

const Name = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[^\\u0000]*$' });

/**
 * A dashboard's definition. Document 1 fixes `layout` ({type, columns, rowHeight}) and that
 * `dataSources` and `widgets` are arrays; the elements are ours, on the model of Grafana's panels:
 * a data source reference names a data source of the tenant by id, a widget sits on the layout's
 * grid at `position` {x, y, w, h} and draws either an ad-hoc query on one of the referenced data
 * sources or a saved query. `options` is the widget type's own settings, kept as given.
 */
export const DataSourceRef = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'id of a data source of the tenant',
    }),
    alias: Type.Optional(Name(100)),
  },
  { additionalProperties: false },
);

export const Widget = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    type: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[a-z][a-z0-9_-]*$',
      description: 'table, line, bar, pie, stat, text, ...',
    }),
    title: Type.Optional(Name(200)),
    position: Type.Object(
      {
        x: Type.Integer({ minimum: 0, maximum: 1000 }),
        y: Type.Integer({ minimum: 0, maximum: 100_000 }),
        w: Type.Integer({ minimum: 1, maximum: 1000 }),
        h: Type.Integer({ minimum: 1, maximum: 1000 }),
      },
      { additionalProperties: false },
    ),
    dataSourceId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "one of the definition's dataSources",
      }),
    ),
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000 })),
    savedQueryId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    cacheSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 86_400,
        description:
          'keep the rows read this many seconds and answer views from them (0 or absent: read on every view)',
      }),
    ),
    click: Type.Optional(Click),
  },
  { additionalProperties: false },
);

/**
 * A dashboard-level parameter (Grafana's variables, Metabase's filters): its value is passed to every widget's
 * query that names it (`:name`; a time range as `:name_from` and `:name_to`), always bound, never spliced.
 */
export const Parameter = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 60, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    type: Type.Union([Type.Literal('time_range'), Type.Literal('text'), Type.Literal('choice'), Type.Literal('query')]),
    label: Type.Optional(Name(100)),
    default: Type.Optional(
      Type.String({
        maxLength: 1000,
        pattern: '^[^\\u0000]*$',
        description:
          'a time range preset (15m … 365d) or absolute range (<from>/<to>, ISO 8601), the text, or one of the choices',
      }),
    ),
    choices: Type.Optional(
      Type.Array(Name(200), { minItems: 1, maxItems: 200, description: 'the values a choice offers' }),
    ),
    dataSourceId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "a query parameter's source: one of the definition's dataSources",
      }),
    ),
    query: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100_000,
        description:
          "a query parameter's SQL: the first column of its rows are the choices; it may use the parameters listed before it as :name (chained)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const Definition = Type.Object(
  {
    layout: Type.Object(
      {
        type: Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z][a-z0-9_-]*$', description: 'grid, ...' }),
        columns: Type.Integer({ minimum: 1, maximum: 48 }),
        rowHeight: Type.Integer({ minimum: 1, maximum: 2000, description: 'pixels' }),
      },
      { additionalProperties: false },
    ),
    dataSources: Type.Array(DataSourceRef, { maxItems: 50 }),
    widgets: Type.Array(Widget, { maxItems: 500 }),
    parameters: Type.Optional(Type.Array(Parameter, { maxItems: 20 })),
    refreshSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 86_400,
        description: 'redraw every widget this often; 0 or absent is off, else at least 5',
      }),
    ),
  },
  { additionalProperties: false },
);

export type DefinitionValue = Static<typeof Definition>;
export type WidgetValue = Static<typeof Widget>;

const MAX_DEPTH = 32;

/** PostgreSQL's jsonb refuses NUL in strings and JSON.stringify overflows on very deep nesting: both are the caller's error. */
function checkValues(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw validation(`${path}: nested more than ${MAX_DEPTH} levels deep`);
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw validation(`${path}: must not contain the NUL character`);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkValues(v, `${path}[${i}]`, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) throw validation(`${path}: a key must not contain the NUL character`);
      checkValues(v, `${path}.${k}`, depth + 1);
    }
  }
}

/** What a schema cannot say: references inside the definition agree with each other, and every value can be stored. */
export function checkDefinition(d: DefinitionValue): void {
  checkValues(d, 'definition', 0);
  const sources = new Set<number>();
  d.dataSources.forEach((s, i) => {
    if (sources.has(s.id)) throw validation(`definition.dataSources[${i}].id: data source ${s.id} is listed twice`);
    sources.add(s.id);
  });
  const ids = new Set<string>();
  d.widgets.forEach((w, i) => {
    const at = `definition.widgets[${i}]`;
    if (ids.has(w.id)) throw validation(`${at}.id: widget id "${w.id}" is used twice`);
    ids.add(w.id);
    if (w.position.x + w.position.w > d.layout.columns) {
      throw validation(
        `${at}.position: x + w (${w.position.x + w.position.w}) exceeds the layout's ${d.layout.columns} columns`,
      );
    }
    if (w.dataSourceId !== undefined && !sources.has(w.dataSourceId)) {
      throw validation(`${at}.dataSourceId: data source ${w.dataSourceId} is not in definition.dataSources`);
    }
    if (w.query !== undefined && w.savedQueryId !== undefined)
      throw validation(`${at}: give query or savedQueryId, not both`);
    if (w.query !== undefined && w.dataSourceId === undefined)
      throw validation(`${at}.dataSourceId: a widget with a query needs a data source`);
    checkChartOptions(w, at);
  });
  if (d.refreshSeconds !== undefined && d.refreshSeconds > 0 && d.refreshSeconds < 5) {
    throw validation('definition.refreshSeconds: 0 (off) or at least 5 seconds');
  }
  checkParameters(d.parameters ?? [], sources);
  // A click names a parameter, so it is checked once the parameters are known to be sound.
  d.widgets.forEach((w, i) => {
    if (w.click) checkClick(w.click, `definition.widgets[${i}].click`, w.type, d.parameters ?? []);
  });
}

/** The chart settings the app reads must have the shape it reads (other options are kept as given). */
function checkChartOptions(w: WidgetValue, at: string): void {
  const y = w.options?.yCategory;
  if (y === undefined) return;
  if (w.type !== 'heatmap') throw validation(`${at}.options.yCategory: only a heatmap has a row category`);
  if (typeof y !== 'string' || y.length === 0 || y.length > 200)
    throw validation(`${at}.options.yCategory: the name of a column, 1 to 200 characters`);
}

/** The names a parameter gives queries: a time range gives two, so `range` and `range_from` cannot both exist. */
export const queryNamesOf = (p: { name: string; type: string }) =>
  p.type === 'time_range' ? [`${p.name}_from`, `${p.name}_to`] : [p.name];

function checkParameters(parameters: NonNullable<DefinitionValue['parameters']>, sources: Set<number>): void {
  const names = new Set<string>();
  parameters.forEach((p, i) => {
    const at = `definition.parameters[${i}]`;
    if (p.type === 'query') {
      if (p.dataSourceId === undefined || p.query === undefined)
        throw validation(`${at}: a query parameter needs dataSourceId and query`);
      if (!sources.has(p.dataSourceId))
        throw validation(`${at}.dataSourceId: data source ${p.dataSourceId} is not in definition.dataSources`);
      // Its choices may depend on the parameters before it, never on itself or those after (no cycle).
      const later = parameters.slice(i).flatMap(queryNamesOf);
      const used = later.find((n) => new RegExp(`(?<![:\\w$@]):${n}(?![A-Za-z0-9_])`).test(p.query!));
      if (used) throw validation(`${at}.query: it may use only the parameters listed before it, not :${used}`);
    } else if (p.dataSourceId !== undefined || p.query !== undefined) {
      throw validation(`${at}: only a query parameter has dataSourceId and query`);
    }
    for (const n of queryNamesOf(p)) {
      if (names.has(n)) throw validation(`${at}.name: the query parameter "${n}" is given twice`);
      names.add(n);
    }
    if (p.type === 'choice') {
      if (!p.choices) throw validation(`${at}.choices: a choice needs its choices`);
      if (p.default !== undefined && !p.choices.includes(p.default))
        throw validation(`${at}.default: "${p.default}" is not one of the choices`);
    } else if (p.choices) {
      throw validation(`${at}.choices: only a choice has choices`);
    }
    const wrong = p.type === 'time_range' && p.default !== undefined ? timeRangeProblem(p.default) : undefined;
    if (wrong) throw validation(`${at}.default: a time range is ${wrong}`);
  });
}
