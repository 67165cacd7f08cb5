import { Type } from 'typebox';
import { DisplayText, Slug, Timestamp } from '../schemas.ts';
import { MAX_ROWS_LIMIT, DEFAULT_MAX_ROWS } from './execute.ts';

export const DataSourceTypeSchema = Type.Union([Type.Literal('postgres'), Type.Literal('mysql')], {
  description: 'provider type',
});

const ConnectionUrl = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'write-only: sealed at rest and never returned. postgres://… or mysql://… (mariadb:// too)',
});
const ConnectionUrlEnv = Type.String({
  minLength: 1,
  maxLength: 200,
  description:
    'name of an environment variable holding the URL; must start with the configured prefix (DASHBOARD_DS_ by default)',
});

export const DataSourceFields = {
  name: DisplayText(200),
  slug: Slug,
  type: DataSourceTypeSchema,
  connectionUrl: ConnectionUrl,
  connectionUrlEnv: ConnectionUrlEnv,
  maxConnections: Type.Integer({ minimum: 1, maximum: 100, description: 'pool size, default 10' }),
  queryTimeoutSeconds: Type.Integer({
    minimum: 1,
    maximum: 3600,
    description: 'server-side statement timeout, default 30',
  }),
  readOnly: Type.Boolean({ description: 'only reads, in a read-only transaction that is rolled back; default true' }),
  sslEnabled: Type.Boolean({
    description:
      'TLS to the database with the certificate verified (add ?sslmode=require to the URL to skip verification); default false',
  }),
  active: Type.Boolean({ description: 'inactive sources refuse queries; default true' }),
  sqlRole: Type.Union([Type.Literal('editor'), Type.Literal('admin'), Type.Literal('owner')], {
    description:
      "the least role that may write SQL on the source: ad-hoc queries, saved queries and dashboard widgets' SQL (default editor); running what is stored is not restricted",
  }),
};

export const CreateDataSourceBody = Type.Object(
  {
    name: DataSourceFields.name,
    slug: DataSourceFields.slug,
    type: DataSourceFields.type,
    connectionUrl: Type.Optional(DataSourceFields.connectionUrl),
    connectionUrlEnv: Type.Optional(DataSourceFields.connectionUrlEnv),
    maxConnections: Type.Optional(DataSourceFields.maxConnections),
    queryTimeoutSeconds: Type.Optional(DataSourceFields.queryTimeoutSeconds),
    readOnly: Type.Optional(DataSourceFields.readOnly),
    sslEnabled: Type.Optional(DataSourceFields.sslEnabled),
    active: Type.Optional(DataSourceFields.active),
    sqlRole: Type.Optional(DataSourceFields.sqlRole),
  },
  { additionalProperties: false },
);

export const UpdateDataSourceBody = Type.Object(
  {
    name: Type.Optional(DataSourceFields.name),
    slug: Type.Optional(DataSourceFields.slug),
    type: Type.Optional(DataSourceFields.type),
    connectionUrl: Type.Optional(DataSourceFields.connectionUrl),
    connectionUrlEnv: Type.Optional(DataSourceFields.connectionUrlEnv),
    maxConnections: Type.Optional(DataSourceFields.maxConnections),
    queryTimeoutSeconds: Type.Optional(DataSourceFields.queryTimeoutSeconds),
    readOnly: Type.Optional(DataSourceFields.readOnly),
    sslEnabled: Type.Optional(DataSourceFields.sslEnabled),
    active: Type.Optional(DataSourceFields.active),
    sqlRole: Type.Optional(DataSourceFields.sqlRole),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Common = {
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  type: DataSourceTypeSchema,
  maxConnections: Type.Integer(),
  queryTimeoutSeconds: Type.Integer(),
  readOnly: Type.Boolean(),
  sslEnabled: Type.Boolean(),
  active: Type.Boolean(),
  sqlRole: DataSourceFields.sqlRole,
  lastConnectedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const DataSourceListItem = Type.Object(Common);
export const DataSourceDetail = Type.Object({
  ...Common,
  connectionUrlEnv: Type.Union([Type.String(), Type.Null()], {
    description: 'null when the source has a sealed connectionUrl instead',
  }),
  hasConnectionUrl: Type.Boolean({ description: 'a sealed connectionUrl is stored (its value is never returned)' }),
});
export const DataSourceCreated = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  type: DataSourceTypeSchema,
  active: Type.Boolean(),
  createdAt: Timestamp,
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
