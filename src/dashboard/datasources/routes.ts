import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn, OPEN } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, notFound, validation } from '../errors.ts';
import { IdParams, bearer, errors } from '../schemas.ts';
import { runAdHoc, sendJson } from '../queries/run.ts';
import { clientGoneSignal } from './client-gone.ts';
import { connectionUrlProblem } from './connection-url.ts';
import type { DataSourceType } from './driver.ts';
import {
  CreateDataSourceBody,
  DataSourceCreated,
  DataSourceDetail,
  DataSourceListItem,
  DataSourceQueryResult,
  DataSourceTypeSchema,
  MaxRows,
  Parameters,
  ProviderSchema,
  QueryText,
  TableDescriptorSchema,
  UpdateDataSourceBody,
} from './schemas.ts';
import type { DataSourceService } from './service.ts';
import {
  DataSourceSlugTaken,
  deleteDataSource,
  getDataSource,
  insertDataSource,
  listDataSources,
  markConnected,
  nextDataSourceId,
  updateDataSource,
  type DataSourceRow,
  type DataSourceValues,
} from './store.ts';

const tags = ['datasources'];

function listItem(r: DataSourceRow) {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    type: r.type,
    maxConnections: r.max_connections,
    queryTimeoutSeconds: r.query_timeout_seconds,
    readOnly: r.read_only,
    sslEnabled: r.ssl_enabled,
    active: r.active,
    sqlRole: r.sql_role,
    lastConnectedAt: r.last_connected_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const detail = (r: DataSourceRow) => ({
  ...listItem(r),
  connectionUrlEnv: r.connection_url_env,
  hasConnectionUrl: r.connection_url_sealed !== null,
});

/** Fields that reach the pool: changing one closes the source's open connections. */
const CONNECTION_FIELDS = [
  'type',
  'connectionUrl',
  'connectionUrlEnv',
  'maxConnections',
  'queryTimeoutSeconds',
  'readOnly',
  'sslEnabled',
  'active',
] as const;

/**
 * Data sources of the caller's tenant. Viewers see them (never a URL); admins create, change, delete and test them;
 * editors browse their schema and run ad-hoc SQL. Another tenant's id is answered 404 on every route.
 */
export function registerDataSourceRoutes(app: App, ctx: DashboardContext, sources: DataSourceService): void {
  const { db } = ctx;

  const load = async (tenantId: number, id: number) => {
    const row = await getDataSource(db, tenantId, id);
    if (!row) throw notFound('data source');
    return row;
  };

  /** Checks the URL fields of a create or update and gives the columns to store; `id` binds the sealed URL to the row. */
  type UrlColumns = Pick<DataSourceValues, 'connection_url_sealed' | 'connection_url_env'>;
  const urlColumns = (
    id: number,
    type: DataSourceType,
    body: { connectionUrl?: string | undefined; connectionUrlEnv?: string | undefined },
  ): UrlColumns | undefined => {
    if (body.connectionUrl !== undefined && body.connectionUrlEnv !== undefined)
      throw validation('give either connectionUrl or connectionUrlEnv, not both');
    if (body.connectionUrl !== undefined) {
      const problem = connectionUrlProblem(type, body.connectionUrl);
      if (problem) throw validation(`connectionUrl: ${problem}`);
      return { connection_url_sealed: sources.sealUrl(id, body.connectionUrl), connection_url_env: null };
    }
    if (body.connectionUrlEnv !== undefined) {
      const problem = sources.envNameProblem(body.connectionUrlEnv, type);
      if (problem) throw validation(`connectionUrlEnv: ${problem}`);
      return { connection_url_sealed: null, connection_url_env: body.connectionUrlEnv };
    }
    return undefined;
  };

  app.get(
    '/api/v1/datasources/providers',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'listDataSourceProviders',
        tags,
        summary: 'The supported database types and what they can do (no authentication)',
        response: { 200: Type.Object({ providers: Type.Array(ProviderSchema) }), ...errors(429) },
      },
    },
    async () => ({ providers: sources.providers() }),
  );

  app.get(
    '/api/v1/datasources',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDataSources',
        tags,
        security: bearer,
        summary: 'Data sources of the tenant, without connection URLs or their environment variable names',
        querystring: Type.Object(
          { active: Type.Optional(Type.Boolean()), type: Type.Optional(DataSourceTypeSchema) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ dataSources: Type.Array(DataSourceListItem), total: Type.Integer() }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const rows = await listDataSources(db, currentUser(request).tenantId, request.query);
      return { dataSources: rows.map(listItem), total: rows.length };
    },
  );

  app.get(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDataSource',
        tags,
        security: bearer,
        summary: 'A data source, with connectionUrlEnv (the URL itself is never returned)',
        params: IdParams,
        response: { 200: DataSourceDetail, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => detail(await load(currentUser(request).tenantId, request.params.id)),
  );

  app.post(
    '/api/v1/datasources',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'createDataSource',
        tags,
        security: bearer,
        summary: 'Create a data source (admin); one of connectionUrl or connectionUrlEnv',
        body: CreateDataSourceBody,
        response: { 201: DataSourceCreated, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const b = request.body;
      if (b.connectionUrl === undefined && b.connectionUrlEnv === undefined)
        throw validation('one of connectionUrl or connectionUrlEnv is required');
      const row = await db.transaction(async (tx) => {
        const id = await nextDataSourceId(tx);
        const values: DataSourceValues = {
          name: b.name.trim(),
          slug: b.slug,
          type: b.type,
          ...urlColumns(id, b.type, b)!,
          max_connections: b.maxConnections ?? 10,
          query_timeout_seconds: b.queryTimeoutSeconds ?? 30,
          read_only: b.readOnly ?? true,
          ssl_enabled: b.sslEnabled ?? false,
          active: b.active ?? true,
          sql_role: b.sqlRole ?? 'editor',
        };
        let created: DataSourceRow;
        try {
          created = await insertDataSource(tx, id, me.tenantId, values);
        } catch (err) {
          if (err instanceof DataSourceSlugTaken) throw conflict(err.message);
          throw err;
        }
        await recordAudit(tx, {
          ...actor(request),
          action: 'datasource.create',
          targetType: 'datasource',
          targetId: id,
          details: {
            slug: b.slug,
            type: b.type,
            fields: Object.keys(b).filter((k) => k !== 'connectionUrl'),
            connectionUrl: b.connectionUrl !== undefined ? 'set' : undefined,
          },
        });
        return created;
      });
      reply.header('location', `/api/v1/datasources/${row.id}`);
      return reply.code(201).send({
        id: row.id,
        name: row.name,
        slug: row.slug,
        type: row.type,
        active: row.active,
        createdAt: row.created_at.toISOString(),
      });
    },
  );

  app.put(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'updateDataSource',
        tags,
        security: bearer,
        summary:
          'Change some fields (admin); only those given change. New connection settings close the open connections.',
        params: IdParams,
        body: UpdateDataSourceBody,
        response: { 200: DataSourceDetail, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      const b = request.body;
      const row = await db.transaction(async (tx) => {
        const current = await getDataSource(tx, me.tenantId, request.params.id, true);
        if (!current) throw notFound('data source');
        const type = b.type ?? current.type;
        let url: UrlColumns | undefined = urlColumns(current.id, type, b);
        if (!url && type !== current.type) {
          // The stored URL must suit the new type too.
          const stored = sources.openStoredUrl(current);
          const problem =
            stored !== undefined
              ? connectionUrlProblem(type, stored)
              : current.connection_url_env
                ? sources.envNameProblem(current.connection_url_env, type)
                : undefined;
          if (problem)
            throw validation(
              `type: the data source's connection URL does not fit: it ${problem.replace(/^environment variable \S+ /, '')}; give a new connectionUrl or connectionUrlEnv with the type`,
            );
        }
        url ??= {
          connection_url_sealed: current.connection_url_sealed,
          connection_url_env: current.connection_url_env,
        };
        const values: DataSourceValues = {
          name: b.name?.trim() ?? current.name,
          slug: b.slug ?? current.slug,
          type,
          ...url,
          max_connections: b.maxConnections ?? current.max_connections,
          query_timeout_seconds: b.queryTimeoutSeconds ?? current.query_timeout_seconds,
          read_only: b.readOnly ?? current.read_only,
          ssl_enabled: b.sslEnabled ?? current.ssl_enabled,
          active: b.active ?? current.active,
          sql_role: b.sqlRole ?? current.sql_role,
        };
        let updated: DataSourceRow;
        try {
          updated = await updateDataSource(tx, current.id, values);
        } catch (err) {
          if (err instanceof DataSourceSlugTaken) throw conflict(err.message);
          throw err;
        }
        await recordAudit(tx, {
          ...actor(request),
          action: 'datasource.update',
          targetType: 'datasource',
          targetId: current.id,
          details: {
            fields: Object.keys(b),
            ...(b.active !== undefined ? { active: b.active } : {}),
            ...(b.readOnly !== undefined ? { readOnly: b.readOnly } : {}),
            ...(b.sqlRole !== undefined ? { sqlRole: b.sqlRole } : {}),
          },
        });
        return updated;
      });
      if (CONNECTION_FIELDS.some((f) => b[f] !== undefined)) await sources.forget(row.id);
      return detail(row);
    },
  );

  app.delete(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'deleteDataSource',
        tags,
        security: bearer,
        summary: 'Delete a data source (admin) and its saved queries; its open connections are closed first',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const row = await load(me.tenantId, request.params.id);
      await sources.forget(row.id);
      await db.transaction(async (tx) => {
        await deleteDataSource(tx, row.id);
        await recordAudit(tx, {
          ...actor(request),
          action: 'datasource.delete',
          targetType: 'datasource',
          targetId: row.id,
          details: { name: row.name, slug: row.slug, type: row.type },
        });
      });
      // A query that started meanwhile may have opened a new pool; it goes too.
      await sources.forget(row.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/datasources/:id/test',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'testDataSource',
        tags,
        security: bearer,
        summary:
          'Open a fresh connection (not cached), run SELECT 1 and close it (admin); success updates lastConnectedAt',
        params: IdParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            durationMs: Type.Integer(),
            error: Type.Optional(Type.String({ description: 'why it failed; never the URL or its password' })),
          }),
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const row = await load(currentUser(request).tenantId, request.params.id);
      const outcome = await sources.test(row);
      if (outcome.success) await markConnected(db, row.id);
      await recordAudit(db, {
        ...actor(request),
        action: 'datasource.test',
        targetType: 'datasource',
        targetId: row.id,
        details: { success: outcome.success },
      });
      return outcome;
    },
  );

  app.post(
    '/api/v1/datasources/:id/query',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'queryDataSource',
        tags,
        security: bearer,
        summary: 'Run one SQL statement (editor); named parameters :name or @name are bound, rows stop at maxRows',
        params: IdParams,
        body: Type.Object(
          { query: QueryText, parameters: Type.Optional(Parameters), maxRows: MaxRows },
          { additionalProperties: false },
        ),
        response: { 200: DataSourceQueryResult, ...errors(400, 401, 403, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const row = await load(currentUser(request).tenantId, request.params.id);
      const { query, parameters = {}, maxRows } = request.body;
      return sendJson(
        reply,
        await runAdHoc(db, sources, request, row, {
          query,
          parameters: parameters as Record<string, unknown>,
          maxRows,
          signal: clientGoneSignal(reply),
        }),
      );
    },
  );

  app.get(
    '/api/v1/datasources/:id/schema',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'getDataSourceSchema',
        tags,
        security: bearer,
        summary: "Tables and views of a schema (editor): the public schema or MySQL's current database by default",
        params: IdParams,
        querystring: Type.Object(
          {
            schema: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000]*$' })),
            columns: Type.Boolean({ default: false, description: 'include column descriptors' }),
            filter: Type.Optional(
              Type.String({
                maxLength: 128,
                pattern: '^[^\\u0000]*$',
                description:
                  'table name pattern: * and % any run, ? and _ one character; without one of *, ?, % the name contains it; case-insensitive',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ tables: Type.Array(TableDescriptorSchema) }),
          ...errors(400, 401, 403, 404, 408, 429, 503),
        },
      },
    },
    async (request) => {
      const row = await load(currentUser(request).tenantId, request.params.id);
      const { schema, columns, filter } = request.query;
      return { tables: await sources.schema(row, { schema, columns, filter }) };
    },
  );
}
