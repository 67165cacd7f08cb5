import { Type } from 'typebox';
import { pageQuery } from '../kit/paging.ts';
import { Timestamp } from '../kit/schemas.ts';

/** `:id` path parameters: the integer id of a resource. */
export const IdParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'integer id of the resource' }),
});

export const RoleSchema = Type.Union(
  [Type.Literal('viewer'), Type.Literal('editor'), Type.Literal('admin'), Type.Literal('owner')],
  { description: 'owner > admin > editor > viewer' },
);
export const PlanSchema = Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('enterprise')], {
  description: 'rate limit per minute: free 60, pro 300, enterprise 1000',
});
export const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });
/** Display names and titles: no control characters (PostgreSQL refuses NUL in text). */
export const DisplayText = (max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f]+$' });
export const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'lower-case letters, digits and single hyphens',
});

export const UserSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  active: Type.Boolean(),
  lastLoginAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
});

/** The signed-in user as `/auth/me` answers: a render's credential also says it only reads. */
export const MeSchema = Type.Object({
  ...UserSchema.properties,
  readOnly: Type.Optional(
    Type.Literal(true, {
      description:
        "present on a render's credential (a subscription's or a download's picture): it only reads, so the web app draws the dashboard alone, without controls",
    }),
  ),
});

export const TokenPairSchema = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.String(),
  expiresIn: Type.Integer(),
  tokenType: Type.Literal('Bearer'),
});

/** Cursor pages of the platform's own lists (the contract fixes no shape for these): the kit's `limit` and `cursor`. */
export const ListQuery = Type.Object(pageQuery({ defaultLimit: 50, maxLimit: 100 }));
/** The position in a list ordered by id: the cursor's content. */
export const IdPosition = Type.Tuple([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })]);

export const bearer = [{ bearerAuth: [] }];
