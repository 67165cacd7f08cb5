import { Type } from 'typebox';
import { DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT } from './execute.ts';

/** The shapes of running SQL: what a run takes and answers, a source's tables, the providers. */
export const DataSourceTypeSchema = Type.Union([Type.Literal('postgres'), Type.Literal('mysql')], {
  description: 'provider type',
});

export const ColumnDescriptorSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'SQL type name as the database reports it' }),
  nullable: Type.Boolean(),
  precision: Type.Optional(Type.Integer()),
  scale: Type.Optional(Type.Integer()),
  length: Type.Optional(Type.Integer()),
});

export const TableDescriptorSchema = Type.Object({
  schema: Type.String(),
  name: Type.String(),
  type: Type.Union([Type.Literal('table'), Type.Literal('view')]),
  columns: Type.Optional(Type.Array(ColumnDescriptorSchema)),
});

export const ProviderSchema = Type.Object({
  name: DataSourceTypeSchema,
  capabilities: Type.Object({
    supportsTransactions: Type.Boolean(),
    supportsStreaming: Type.Boolean(),
    supportsPreparedStmts: Type.Boolean(),
    supportsNamedParams: Type.Boolean(),
    parameterStyle: Type.Union([Type.Literal('positional_dollar'), Type.Literal('positional_question')]),
  }),
});

export const QueryText = Type.String({
  minLength: 1,
  maxLength: 100_000,
  pattern: '^[^\\u0000]*$',
  description:
    'one SQL statement; named parameters as :name or @name, each one given in the parameters (a MySQL user variable is written quoted: @`total`)',
});
export const Parameters = Type.Object(
  {},
  {
    additionalProperties: true,
    maxProperties: 100,
    description:
      'named parameter values: strings, numbers, booleans, null (and arrays of those on PostgreSQL); always bound, never spliced into the text',
  },
);
export const MaxRows = Type.Integer({
  minimum: 1,
  maximum: MAX_ROWS_LIMIT,
  default: DEFAULT_MAX_ROWS,
  description: `rows returned at most (default ${DEFAULT_MAX_ROWS}, max ${MAX_ROWS_LIMIT}); truncated says when more existed`,
});

const Row = Type.Record(Type.String(), Type.Unknown(), {
  description: 'keyed by column name; bigint and decimal as strings, dates ISO 8601, binary base64',
});

export const DataSourceQueryResult = Type.Object({
  columns: Type.Array(ColumnDescriptorSchema),
  rows: Type.Array(Row),
  rowCount: Type.Integer(),
  executionTimeMs: Type.Number(),
  truncated: Type.Boolean({ description: 'more rows existed than maxRows; reading stopped at the cap' }),
});

/** The result of POST /query and POST /queries/:id/run: column names only, as Document 1 gives it. */
export const QueryResult = Type.Object({
  columns: Type.Array(Type.String()),
  rows: Type.Array(Row),
  rowCount: Type.Integer(),
  executionTimeMs: Type.Number(),
  truncated: Type.Boolean({ description: 'more rows existed than maxRows; reading stopped at the cap' }),
});

/** A widget's rows, and where they came from: read now, from a run under way, or kept (the widget's cacheSeconds). */
export const WidgetRunResult = Type.Object({
  ...QueryResult.properties,
  cachedAt: Type.String({ format: 'date-time', description: 'when these rows were read from the database' }),
  served: Type.Union([Type.Literal('database'), Type.Literal('shared'), Type.Literal('cache')], {
    description: 'database: read for this request; shared: an identical run under way answered it; cache: kept rows',
  }),
});

/** A widget run: parameter values, and `refresh` to read the rows again though a kept result is fresh. */
export const WidgetRunBody = Type.Object(
  {
    params: Type.Optional(Parameters),
    maxRows: MaxRows,
    refresh: Type.Optional(Type.Boolean({ description: "true: read the rows again, not the widget's kept ones" })),
  },
  { additionalProperties: false },
);

/** A run of stored SQL (a saved query, a widget): parameter values only. */
export const StoredRunBody = Type.Object(
  { params: Type.Optional(Parameters), maxRows: MaxRows },
  { additionalProperties: false },
);
