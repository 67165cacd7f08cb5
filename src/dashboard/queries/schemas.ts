import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, ListQuery } from '../schemas.ts';
import { MaxRows, Parameters, QueryText } from '../sql/schemas.ts';

/** A saved query as answered (Document 1's request fields plus who made it and when). */
export const SavedQuery = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  dataSourceId: Type.Integer(),
  query: Type.String(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdByName: Type.Union([Type.String(), Type.Null()], { description: 'null once that person is deleted' }),
  updatedBy: Type.Union([Type.Integer(), Type.Null()], { description: 'who last changed it' }),
  updatedByName: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Description = Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$' });
const DataSourceId = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'id of a data source of the tenant',
});

export const SavedQueryListQuery = Type.Object(
  {
    ...ListQuery.properties,
    dataSourceId: Type.Optional(DataSourceId),
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\u0000]*$',
        description: 'words found in the name, description or SQL (case-insensitive)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreateSavedQueryBody = Type.Object(
  { name: DisplayText(200), description: Type.Optional(Description), dataSourceId: DataSourceId, query: QueryText },
  { additionalProperties: false },
);

export const UpdateSavedQueryBody = Type.Object(
  {
    name: Type.Optional(DisplayText(200)),
    description: Type.Optional(Type.Union([Type.Null(), Description], { description: 'null removes it' })),
    dataSourceId: Type.Optional(DataSourceId),
    query: Type.Optional(QueryText),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** POST /query: Document 1's ad-hoc run, its parameters named `params`. */
export const AdHocQueryBody = Type.Object(
  {
    dataSourceId: DataSourceId,
    query: QueryText,
    params: Type.Optional(Parameters),
    maxRows: MaxRows,
    history: Type.Optional(
      Type.Boolean({ description: "true: keep this run in the caller's query history (the SQL editor's runs)" }),
    ),
  },
  { additionalProperties: false },
);
