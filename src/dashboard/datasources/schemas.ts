import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, Slug } from '../schemas.ts';
import { DataSourceTypeSchema } from '../sql/schemas.ts';

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

export const DataSourceListQuery = Type.Object(
  { active: Type.Optional(Type.Boolean()), type: Type.Optional(DataSourceTypeSchema) },
  { additionalProperties: false },
);

export const TestOutcomeSchema = Type.Object({
  success: Type.Boolean(),
  durationMs: Type.Integer(),
  error: Type.Optional(Type.String({ description: 'why it failed; never the URL or its password' })),
});

export const SchemaQuery = Type.Object(
  {
    schema: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000]*$' })),
    columns: Type.Boolean({ default: false, description: 'include column descriptors' }),
    filter: Type.Optional(
      Type.String({
        maxLength: 128,
        pattern: '^[^\\u0000]*$',
        description:
          'table name pattern: * and % any run, ? and _ one character; without one of *, ?, % the name contains it; case-insensitive',
      }),
    ),
  },
  { additionalProperties: false },
);
