import { Type } from 'typebox';
import { DisplayText, Email, Slug } from '../schemas.ts';

export const SetupStatusSchema = Type.Object({
  setupRequired: Type.Boolean({
    description: 'true while no user exists: the first visitor may create the first owner',
  }),
  platformAccount: Type.Boolean({
    description:
      'true when `platform start` runs the identity service beside the dashboard: the first owner also gets an account there, so the setup body needs `password` and `passwordConfirmation`',
  }),
  minPasswordLength: Type.Optional(
    Type.Integer({ description: 'with platformAccount: the shortest password identity accepts' }),
  ),
});

// Not checked for strength here beyond identity's own minimum, which the route checks (its value is in the status).
const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const SetupBody = Type.Object(
  {
    tenantName: DisplayText(200),
    tenantSlug: Slug,
    email: Email,
    name: DisplayText(200),
    password: Type.Optional({
      ...Password,
      description:
        "only with platformAccount (then required): the owner's password at the identity service; never stored here",
    }),
    passwordConfirmation: Type.Optional({ ...Password, description: 'the same password again' }),
  },
  { additionalProperties: false },
);

export const SetupResultSchema = Type.Object({
  tenant: Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String() }),
  user: Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String(), role: Type.Literal('owner') }),
  platformAccount: Type.Optional(
    Type.Union([Type.Literal('created'), Type.Literal('existing')], {
      description:
        'with platformAccount: `created` when the identity account was made with this password, `existing` when identity already had one with this email (left unchanged: sign in with its own password)',
    }),
  ),
});
