import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, IdParams, ListQuery, Slug } from '../schemas.ts';
import { Definition } from './definition.ts';

/** Dashboards as answered: a list item, the full dashboard with its definition, a version (shared with the web app's types). */
export const Summary = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  tags: Type.Array(Type.String()),
  version: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
/** A list item: also whether it is one of the caller's favourites. */
export const ListItem = Type.Object({ ...Summary.properties, favourite: Type.Boolean() });
export const Full = Type.Object({ ...Summary.properties, definition: Definition });
export const Created = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const VersionSummary = Type.Object({
  version: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  restoredFrom: Type.Union([Type.Integer(), Type.Null()]),
});
export const VersionDetail = Type.Object({
  ...VersionSummary.properties,
  description: Type.Optional(Type.String()),
  definition: Definition,
});

/** Document 1's list: pages by number, search over title and description. */
export const ListDashboardsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    perPage: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^[^\\u0000]*$',
        description: 'matches title and description, case-insensitive',
      }),
    ),
    tag: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        pattern: '^[^\\u0000]*$',
        description: 'only dashboards with this tag (any case)',
      }),
    ),
    favourites: Type.Optional(Type.Boolean({ description: "true: only the caller's favourites" })),
    sort: Type.Union([Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('title')], {
      default: 'created_at',
    }),
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'desc for dates, asc for title by default',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DashboardPage = Type.Object({
  data: Type.Array(ListItem),
  meta: Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    perPage: Type.Integer(),
    totalPages: Type.Integer(),
  }),
});

const Description = Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$' });
/** Trimmed, then 1 to 40 characters each and unique ignoring case (tags.ts): a 400 otherwise. */
const Tags = Type.Array(Type.String({ maxLength: 200, pattern: '^[^\\u0000]*$' }), {
  maxItems: 10,
  description: 'at most 10, each 1 to 40 characters once trimmed, unique ignoring case',
});

export const CreateDashboardBody = Type.Object(
  {
    slug: Slug,
    title: DisplayText(200),
    description: Type.Optional(Description),
    tags: Type.Optional(Tags),
    definition: Definition,
  },
  { additionalProperties: false },
);

export const UpdateDashboardBody = Type.Object(
  {
    slug: Type.Optional(Slug),
    title: Type.Optional(DisplayText(200)),
    description: Type.Optional(Type.Union([Type.Null(), Description], { description: 'null removes it' })),
    tags: Type.Optional(Tags),
    definition: Type.Optional(Definition),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The ETag a write was based on: a stale one is refused 412. */
export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) });

export const VersionListQuery = Type.Object(ListQuery.properties, { additionalProperties: false });
export const VersionPosition = Type.Tuple([Type.Integer({ minimum: 1, maximum: 2_147_483_647 })]);
export const VersionParams = Type.Object({
  ...IdParams.properties,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

export const WidgetParams = Type.Object({
  ...IdParams.properties,
  widgetId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

/** Who may see and change a dashboard (access.ts): the whole tenant as roles say, or only those named. */
const UserIds = Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 500, uniqueItems: true });
export const DashboardAccess = Type.Object(
  {
    restricted: Type.Boolean({
      description:
        "true: only the tenant's admins, the dashboard's creator and the people listed see it; false: the whole tenant, as roles say",
    }),
    viewers: Type.Array(Type.Integer(), { description: 'user ids who may see it (only see it, whatever their role)' }),
    editors: Type.Array(Type.Integer(), {
      description: 'user ids who may see it and, when their tenant role is editor or above, change it',
    }),
    createdBy: Type.Union([Type.Integer(), Type.Null()], { description: 'the creator, who always sees it' }),
    mayEdit: Type.Boolean({ description: 'whether the caller may change the dashboard (its role and these lists)' }),
  },
  { additionalProperties: false },
);
export const DashboardAccessBody = Type.Object(
  { restricted: Type.Boolean(), viewers: Type.Optional(UserIds), editors: Type.Optional(UserIds) },
  { additionalProperties: false },
);
