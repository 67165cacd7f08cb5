import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { DataSourceFields } from '../datasources/schemas.ts';
import { DisplayText, Slug } from '../schemas.ts';
import { Definition, Widget } from '../dashboards/definition.ts';

/**
 * A provisioning bundle: what a file in DASHBOARD_PROVISIONING_DIR holds (YAML or JSON), and what the
 * platform's own starter data is written as. Data sources and dashboards are named by slug, so a file
 * never needs a database id: a dashboard's definition is the API's (src/dashboard/dashboards/definition.ts)
 * except that it may name data sources by slug (`dataSources: [{slug}]`, a widget's `dataSource: <slug>`).
 */
const ProvisionedDataSource = Type.Object(
  {
    slug: Slug,
    name: DataSourceFields.name,
    type: DataSourceFields.type,
    connectionUrl: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: `${VAR}` is the provisioning file's own placeholder syntax, described as text
        description: '${VAR} is replaced by that environment variable at apply time',
      }),
    ),
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

const SourceRef = Type.Union([
  Type.Object(
    { slug: Slug, alias: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      alias: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    },
    { additionalProperties: false },
  ),
]);

// The API's widget, plus `dataSource` (a slug) in place of `dataSourceId`.
const ProvisionedWidget = Type.Object(
  { ...Widget.properties, dataSource: Type.Optional(Slug) },
  { additionalProperties: false },
);

export const ProvisionedDashboard = Type.Object(
  {
    slug: Slug,
    title: DisplayText(200),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    // Whatever else the API's definition holds (layout, and any field added later) is taken as the API takes it.
    definition: Type.Object(
      {
        ...Definition.properties,
        dataSources: Type.Optional(Type.Array(SourceRef, { maxItems: 50 })),
        widgets: Type.Array(ProvisionedWidget, { maxItems: 500 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const ProvisioningFile = Type.Object(
  {
    tenant: Type.Optional(Slug),
    dataSources: Type.Optional(Type.Array(ProvisionedDataSource, { maxItems: 100 })),
    dashboards: Type.Optional(Type.Array(ProvisionedDashboard, { maxItems: 500 })),
  },
  { additionalProperties: false },
);

export type ProvisioningBundle = Static<typeof ProvisioningFile>;
export type ProvisionedDataSourceValue = Static<typeof ProvisionedDataSource>;
export type ProvisionedDashboardValue = Static<typeof ProvisionedDashboard>;

/** A field of a bundle that cannot be applied: `field` is a path such as `dashboards[0].definition.widgets[2].position`. */
export class ProvisioningError extends Error {
  readonly origin: string;
  readonly field: string;
  readonly problem: string;
  constructor(origin: string, field: string, problem: string) {
    super(`${origin}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'ProvisioningError';
    this.origin = origin;
    this.field = field;
    this.problem = problem;
  }
}

/** `/dashboards/0/definition/widgets/2` → `dashboards[0].definition.widgets[2]`. */
export function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/** Checks a parsed file against the bundle's schema; the first problem becomes one line naming the field. */
export function checkBundle(origin: string, value: unknown): ProvisioningBundle {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ProvisioningError(origin, '', 'must be an object with `dataSources` and/or `dashboards`');
  if (Value.Check(ProvisioningFile, value)) return value;
  const errors = Value.Errors(ProvisioningFile, value).filter((e) => e.keyword !== 'boolean' && e.keyword !== 'anyOf');
  // The deepest problem is the most precise one (a union reports its own failure above its members').
  const first = [...errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0];
  if (!first) throw new ProvisioningError(origin, '', 'does not match the provisioning format');
  const extra = (first.params as { additionalProperties?: string[] }).additionalProperties;
  if (first.keyword === 'additionalProperties' && extra?.length) {
    const at = fieldPath(first.instancePath);
    throw new ProvisioningError(origin, at ? `${at}.${extra[0]}` : extra[0]!, 'unknown field');
  }
  const missing = (first.params as { requiredProperties?: string[] }).requiredProperties;
  if (first.keyword === 'required' && missing?.length) {
    const at = fieldPath(first.instancePath);
    throw new ProvisioningError(origin, at ? `${at}.${missing[0]}` : missing[0]!, 'is required');
  }
  if (first.keyword === 'const') {
    // A union of literals (`type: postgres | mysql`): name the choices rather than "must be equal to constant".
    const allowed = errors
      .filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
      .map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
    throw new ProvisioningError(origin, fieldPath(first.instancePath), `must be one of ${allowed.join(', ')}`);
  }
  throw new ProvisioningError(origin, fieldPath(first.instancePath), first.message);
}
