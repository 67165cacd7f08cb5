import { Value } from 'typebox/value';
import type { Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { Role } from '../auth/roles.ts';
import { checkWidgetSql } from '../sql/authors.ts';
import { checkDefinition, Definition, type DefinitionValue } from '../dashboards/definition.ts';
import { getDashboard, insertDashboard, updateDashboard, type DashboardRow } from '../dashboards/store.ts';
import { dashboardFor } from '../lookup.ts';
import { connectionUrlProblem } from '../sql/connection-url.ts';
import type { SourceUrls } from '../sql/urls.ts';
import { settingsWithDefaults } from '../datasources/values.ts';
import {
  insertDataSource,
  listDataSources,
  nextDataSourceId,
  updateDataSource,
  type DataSourceRow,
  type DataSourceValues,
} from '../datasources/store.ts';
import {
  fieldPath,
  ProvisioningError,
  type ProvisionedDashboardValue,
  type ProvisionedDataSourceValue,
  type ProvisioningBundle,
} from './format.ts';

/**
 * `keep`: what exists is left as it is (the platform's starter data: an admin may have changed it since).
 * `sync`: what exists is brought to the bundle's values (files are the source of truth, as in Grafana).
 */
export type ApplyMode = 'keep' | 'sync';
export type Outcome = 'created' | 'updated' | 'unchanged';

export interface ApplyReport {
  dataSources: { slug: string; outcome: Outcome }[];
  dashboards: { slug: string; outcome: Outcome }[];
}

export interface ApplyInput {
  tenantId: number;
  bundle: ProvisioningBundle;
  /** The file (or `platform`) the bundle comes from: named in errors and audit records. */
  origin: string;
  mode: ApplyMode;
  /** A user importing through the API (src/dashboard/transfer): the records and versions name them, not provisioning, and their role must allow the SQL they bring (sql/authors.ts). */
  userId?: number | undefined;
  role?: Role | undefined;
}

/** Who the audit records and versions name: the importing user, or nobody (provisioning, from `origin`). */
const madeBy = (input: ApplyInput) =>
  input.userId !== undefined
    ? { userId: input.userId, by: { by: 'import' } }
    : { userId: null, by: { by: 'provisioning', origin: input.origin } };

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${VAR}` in a URL is that environment variable's value, so the secret stays out of the file (and version control). */
export function expandEnv(origin: string, field: string, text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(ENV_REFERENCE, (_m, name: string) => {
    const value = env[name];
    if (value === undefined || value === '')
      throw new ProvisioningError(origin, field, `environment variable ${name} is not set`);
    return value;
  });
}

/** Keys sorted, so two definitions compare equal whatever order jsonb gave back. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/**
 * Applies one bundle to one tenant inside the caller's transaction (see provision() in run.ts, which holds the
 * lock every instance shares and rolls back everything when one bundle is wrong).
 */
export async function applyBundle(
  tx: Queryable,
  urls: SourceUrls,
  input: ApplyInput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ApplyReport> {
  {
    const report: ApplyReport = { dataSources: [], dashboards: [] };
    const existing = new Map((await listDataSources(tx, input.tenantId, {})).map((r) => [r.slug, r]));
    for (const [i, ds] of (input.bundle.dataSources ?? []).entries()) {
      const row = await applyDataSource(tx, urls, input, ds, `dataSources[${i}]`, existing.get(ds.slug), env);
      existing.set(row.row.slug, row.row);
      report.dataSources.push({ slug: ds.slug, outcome: row.outcome });
    }
    const slugToId = new Map([...existing.values()].map((r) => [r.slug, r.id]));
    for (const [i, d] of (input.bundle.dashboards ?? []).entries()) {
      report.dashboards.push({
        slug: d.slug,
        outcome: (await applyDashboard(tx, input, d, `dashboards[${i}]`, slugToId)).outcome,
      });
    }
    return report;
  }
}

async function applyDataSource(
  tx: Queryable,
  urls: SourceUrls,
  input: ApplyInput,
  ds: ProvisionedDataSourceValue,
  at: string,
  current: DataSourceRow | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ row: DataSourceRow; outcome: Outcome }> {
  if (current && input.mode === 'keep') return { row: current, outcome: 'unchanged' };
  if ((ds.connectionUrl === undefined) === (ds.connectionUrlEnv === undefined))
    throw new ProvisioningError(
      input.origin,
      `${at}.connectionUrl`,
      'give either connectionUrl or connectionUrlEnv, not both or neither',
    );
  let url: string | undefined;
  if (ds.connectionUrl !== undefined) {
    url = expandEnv(input.origin, `${at}.connectionUrl`, ds.connectionUrl, env);
    const problem = connectionUrlProblem(ds.type, url);
    if (problem) throw new ProvisioningError(input.origin, `${at}.connectionUrl`, problem);
  } else {
    const problem = urls.envNameProblem(ds.connectionUrlEnv!, ds.type);
    if (problem) throw new ProvisioningError(input.origin, `${at}.connectionUrlEnv`, problem);
  }
  const values: Omit<DataSourceValues, 'connection_url_sealed'> = {
    name: ds.name,
    slug: ds.slug,
    type: ds.type,
    connection_url_env: ds.connectionUrlEnv ?? null,
    ...settingsWithDefaults(ds),
  };
  const by = { by: 'provisioning', origin: input.origin };
  if (!current) {
    const id = await nextDataSourceId(tx);
    const row = await insertDataSource(tx, id, input.tenantId, {
      ...values,
      connection_url_sealed: url === undefined ? null : urls.seal(id, url),
    });
    await recordAudit(tx, {
      tenantId: input.tenantId,
      userId: null,
      action: 'datasource.create',
      targetType: 'datasource',
      targetId: id,
      details: { slug: ds.slug, type: ds.type, readOnly: values.read_only, ...by },
    });
    return { row, outcome: 'created' };
  }
  const changed = (Object.keys(values) as (keyof typeof values)[]).filter((k) => values[k] !== current[k]);
  // A sealed value differs at every sealing (random IV): compare the URLs in clear, and seal again only when they differ.
  const urlChanged = url !== undefined ? urls.openSealed(current) !== url : current.connection_url_sealed !== null;
  if (!changed.length && !urlChanged) return { row: current, outcome: 'unchanged' };
  const sealed = url === undefined ? null : urlChanged ? urls.seal(current.id, url) : current.connection_url_sealed;
  const row = await updateDataSource(tx, current.id, { ...values, connection_url_sealed: sealed });
  const fields = [...changed.map(String), ...(urlChanged ? ['connectionUrl'] : [])];
  await recordAudit(tx, {
    tenantId: input.tenantId,
    userId: null,
    action: 'datasource.update',
    targetType: 'datasource',
    targetId: current.id,
    details: { fields, ...by },
  });
  return { row, outcome: 'updated' };
}

/** The API's definition from the file's: data source slugs become the tenant's ids. */
function resolveDefinition(
  input: ApplyInput,
  d: ProvisionedDashboardValue,
  at: string,
  slugToId: Map<string, number>,
): DefinitionValue {
  const idOf = (slug: string, field: string) => {
    const id = slugToId.get(slug);
    if (id === undefined)
      throw new ProvisioningError(
        input.origin,
        field,
        `no data source "${slug}" in the tenant${input.userId === undefined ? ' or the file' : ''}`,
      );
    return id;
  };
  const refs = (d.definition.dataSources ?? []).map((r, i) =>
    'slug' in r
      ? { id: idOf(r.slug, `${at}.definition.dataSources[${i}].slug`), ...(r.alias ? { alias: r.alias } : {}) }
      : r,
  );
  const widgets = d.definition.widgets.map((w, i) => {
    const { dataSource, ...rest } = w;
    if (dataSource === undefined) return rest;
    if (rest.dataSourceId !== undefined)
      throw new ProvisioningError(
        input.origin,
        `${at}.definition.widgets[${i}].dataSource`,
        'give dataSource (a slug) or dataSourceId, not both',
      );
    const id = idOf(dataSource, `${at}.definition.widgets[${i}].dataSource`);
    // A widget naming a source by slug need not list it again in dataSources.
    if (!refs.some((r) => r.id === id)) refs.push({ id });
    return { ...rest, dataSourceId: id };
  });
  const definition = { ...d.definition, dataSources: refs, widgets };
  if (!Value.Check(Definition, definition)) {
    const first = Value.Errors(Definition, definition).find((e) => e.keyword !== 'boolean');
    throw new ProvisioningError(
      input.origin,
      `${at}.definition${first ? `.${fieldPath(first.instancePath)}` : ''}`.replace(/\.$/, ''),
      first?.message ?? 'is not a valid definition',
    );
  }
  try {
    checkDefinition(definition);
  } catch (err) {
    if (err instanceof HttpError) throw new ProvisioningError(input.origin, at, err.message);
    throw err;
  }
  return definition;
}

/** Makes or brings one dashboard of a bundle to its values; data source slugs are looked up in `slugToId`. */
export async function applyDashboard(
  tx: Queryable,
  input: ApplyInput,
  d: ProvisionedDashboardValue,
  at: string,
  slugToId: Map<string, number>,
): Promise<{ row: DashboardRow | undefined; outcome: Outcome }> {
  const { rows } = await tx.query<{ id: number }>(
    `SELECT id FROM dashboards WHERE tenant_id = $1 AND slug = $2 FOR UPDATE`,
    [input.tenantId, d.slug],
  );
  if (rows[0] && input.mode === 'keep') return { row: undefined, outcome: 'unchanged' };
  const definition = resolveDefinition(input, d, at, slugToId);
  // Read under the row lock taken above, so the version compared is the one updated.
  // An import overwrites only a dashboard its person may change (dashboards/access.ts); provisioning is the operator's.
  const importer =
    input.userId !== undefined && input.role
      ? { id: input.userId, tenantId: input.tenantId, role: input.role }
      : undefined;
  const current = !rows[0]
    ? undefined
    : importer
      ? await dashboardFor(tx, importer, rows[0].id, { edit: true })
      : await getDashboard(tx, input.tenantId, rows[0].id);
  if (input.role)
    await checkWidgetSql(tx, { role: input.role, tenantId: input.tenantId }, definition, current?.definition);
  const next = { slug: d.slug, title: d.title, description: d.description ?? null, definition };
  const { userId, by } = madeBy(input);
  if (!current) {
    const row = await insertDashboard(tx, { tenantId: input.tenantId, userId, ...next });
    await recordAudit(tx, {
      tenantId: input.tenantId,
      userId,
      action: 'dashboard.create',
      targetType: 'dashboard',
      targetId: row.id,
      details: { slug: d.slug, title: d.title, ...by },
    });
    return { row, outcome: 'created' };
  }
  if (
    current.title === next.title &&
    current.description === next.description &&
    canonical(current.definition) === canonical(definition)
  )
    return { row: current, outcome: 'unchanged' };
  const row = await updateDashboard(tx, current, next, userId);
  await recordAudit(tx, {
    tenantId: input.tenantId,
    userId,
    action: 'dashboard.update',
    targetType: 'dashboard',
    targetId: row.id,
    details: { title: d.title, version: row.version, ...by },
  });
  return { row, outcome: 'updated' };
}
