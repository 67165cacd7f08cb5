import { Type } from 'typebox';
import { ProvisionedDashboard } from '../provision/format.ts';

const MAX_IMPORT = 50;

export const Bundle = Type.Object(
  {
    dashboards: Type.Array(ProvisionedDashboard, { minItems: 1, maxItems: MAX_IMPORT }),
  },
  {
    additionalProperties: false,
    description: 'a provisioning bundle (docs/dashboard.md, "Provisioning") holding dashboards only',
  },
);

export const ImportBody = Type.Object(
  {
    ...Bundle.properties,
    // Named so their refusal can say why, rather than "unknown field".
    dataSources: Type.Optional(Type.Unknown()),
    tenant: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const Imported = Type.Object({
  dashboards: Type.Array(
    Type.Object({
      id: Type.Integer(),
      slug: Type.String(),
      title: Type.String(),
      version: Type.Integer(),
      outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
    }),
  ),
});
