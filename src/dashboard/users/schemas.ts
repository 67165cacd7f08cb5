import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, Email, RoleSchema, UserSchema } from '../schemas.ts';

/** The answer to Add user: the user, and when `platform start` links identity, what happened there. */
export const CreatedUserSchema = Type.Object({
  ...UserSchema.properties,
  platformAccount: Type.Optional(
    Type.Union([Type.Literal('created'), Type.Literal('existing')], {
      description:
        'only when `platform start` runs identity beside the dashboard: `created` when identity made an account for this email (with `setupLink`), `existing` when it already had one (left unchanged: the person signs in with its own password)',
    }),
  ),
  setupLink: Type.Optional(
    Type.String({
      format: 'uri',
      description:
        'with `created`: the one-time link at identity where the person chooses a password; shown this once, stored nowhere by the dashboard',
    }),
  ),
  setupLinkExpiresAt: Type.Optional({
    ...Timestamp,
    description:
      'with `setupLink`: when the link stops working (IDENTITY_PASSWORD_LINK_TTL after now, 7 days by default)',
  }),
});

/** The answer to "New password link": the one-time link, answered this once. */
export const PasswordLinkSchema = Type.Object({
  setupLink: Type.String({
    format: 'uri',
    description:
      'the new one-time link at identity where the person chooses a password; the older unused ones stop working; stored nowhere by the dashboard',
  }),
  setupLinkExpiresAt: {
    ...Timestamp,
    description: 'when the link stops working (IDENTITY_PASSWORD_LINK_TTL after now, 7 days by default)',
  },
});

export const NewUserBody = Type.Object(
  { email: Email, name: DisplayText(200), role: RoleSchema },
  { additionalProperties: false },
);

export const UserChangeBody = Type.Object(
  {
    name: Type.Optional(DisplayText(200)),
    role: Type.Optional(RoleSchema),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
