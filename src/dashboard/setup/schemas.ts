import { Type } from 'typebox';
import { DisplayText, Email, Slug } from '../schemas.ts';

export const SetupStatusSchema = Type.Object({
  setupRequired: Type.Boolean({ description: 'true while no user exists: the first visitor may create the first owner' }),
});

export const SetupBody = Type.Object({
  tenantName: DisplayText(200),
  tenantSlug: Slug,
  email: Email,
  name: DisplayText(200),
}, { additionalProperties: false });

export const SetupResultSchema = Type.Object({
  tenant: Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String() }),
  user: Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String(), role: Type.Literal('owner') }),
});
