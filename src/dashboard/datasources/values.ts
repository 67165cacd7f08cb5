import type { Static } from 'typebox';
import { validation } from '../errors.ts';
import { connectionUrlProblem } from '../sql/connection-url.ts';
import type { DataSourceType } from '../sql/driver.ts';
import type { SourceUrls } from '../sql/urls.ts';
import type { CreateDataSourceBody, UpdateDataSourceBody } from './schemas.ts';
import type { DataSourceRow, DataSourceValues } from './store.ts';

export type CreateBody = Static<typeof CreateDataSourceBody>;
export type UpdateBody = Static<typeof UpdateDataSourceBody>;
type UrlColumns = Pick<DataSourceValues, 'connection_url_sealed' | 'connection_url_env'>;

/** A new source needs a URL, sealed or named by a variable; checked before anything is written. */
export function requireUrl(body: CreateBody): void {
  if (body.connectionUrl === undefined && body.connectionUrlEnv === undefined)
    throw validation('one of connectionUrl or connectionUrlEnv is required');
}

/** The columns of a new source. */
export function newValues(id: number, body: CreateBody, urls: SourceUrls): DataSourceValues {
  return {
    name: body.name.trim(),
    slug: body.slug,
    type: body.type,
    ...givenUrl(id, body.type, body, urls)!,
    ...settingsWithDefaults(body),
  };
}

type SettingFields = Pick<
  CreateBody,
  'maxConnections' | 'queryTimeoutSeconds' | 'readOnly' | 'sslEnabled' | 'active' | 'sqlRole'
>;

/** A new source's settings columns, with the document's defaults for what is left out (the API and provisioning). */
export function settingsWithDefaults(f: SettingFields) {
  return {
    max_connections: f.maxConnections ?? 10,
    query_timeout_seconds: f.queryTimeoutSeconds ?? 30,
    read_only: f.readOnly ?? true,
    ssl_enabled: f.sslEnabled ?? false,
    active: f.active ?? true,
    sql_role: f.sqlRole ?? 'editor',
  };
}

/** The columns after an update: only what the body gives changes. */
export function updatedValues(current: DataSourceRow, body: UpdateBody, urls: SourceUrls): DataSourceValues {
  const type = body.type ?? current.type;
  return {
    name: body.name?.trim() ?? current.name,
    slug: body.slug ?? current.slug,
    type,
    ...(givenUrl(current.id, type, body, urls) ?? keptUrl(current, type, urls)),
    max_connections: body.maxConnections ?? current.max_connections,
    query_timeout_seconds: body.queryTimeoutSeconds ?? current.query_timeout_seconds,
    read_only: body.readOnly ?? current.read_only,
    ssl_enabled: body.sslEnabled ?? current.ssl_enabled,
    active: body.active ?? current.active,
    sql_role: body.sqlRole ?? current.sql_role,
  };
}

/** Checks the URL fields of a create or update and gives the columns to store; `id` binds the sealed URL to the row. */
function givenUrl(
  id: number,
  type: DataSourceType,
  body: { connectionUrl?: string | undefined; connectionUrlEnv?: string | undefined },
  urls: SourceUrls,
): UrlColumns | undefined {
  if (body.connectionUrl !== undefined && body.connectionUrlEnv !== undefined)
    throw validation('give either connectionUrl or connectionUrlEnv, not both');
  if (body.connectionUrl !== undefined) {
    const problem = connectionUrlProblem(type, body.connectionUrl);
    if (problem) throw validation(`connectionUrl: ${problem}`);
    return { connection_url_sealed: urls.seal(id, body.connectionUrl), connection_url_env: null };
  }
  if (body.connectionUrlEnv !== undefined) {
    const problem = urls.envNameProblem(body.connectionUrlEnv, type);
    if (problem) throw validation(`connectionUrlEnv: ${problem}`);
    return { connection_url_sealed: null, connection_url_env: body.connectionUrlEnv };
  }
  return undefined;
}

/** The stored URL columns, which must suit a new type too. */
function keptUrl(current: DataSourceRow, type: DataSourceType, urls: SourceUrls): UrlColumns {
  if (type !== current.type) {
    const stored = urls.openSealed(current);
    const problem =
      stored !== undefined
        ? connectionUrlProblem(type, stored)
        : current.connection_url_env
          ? urls.envNameProblem(current.connection_url_env, type)
          : undefined;
    if (problem)
      throw validation(
        `type: the data source's connection URL does not fit: it ${problem.replace(/^environment variable \S+ /, '')}; give a new connectionUrl or connectionUrlEnv with the type`,
      );
  }
  return { connection_url_sealed: current.connection_url_sealed, connection_url_env: current.connection_url_env };
}
