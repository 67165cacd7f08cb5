import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, PlanSchema, Slug } from '../schemas.ts';

export const TenantSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  plan: PlanSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const NewTenantBody = Type.Object(
  { slug: Slug, name: DisplayText(200), plan: Type.Optional(PlanSchema) },
  { additionalProperties: false },
);

export const TenantChangeBody = Type.Object(
  { name: Type.Optional(DisplayText(200)), plan: Type.Optional(PlanSchema) },
  { additionalProperties: false, minProperties: 1 },
);
