import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { clientGoneSignal } from '../datasources/client-gone.ts';
import type { DataSourceType } from '../datasources/driver.ts';
import { DEFAULT_MAX_ROWS } from '../datasources/execute.ts';
import { MaxRows, Parameters, QueryResult, QueryText } from '../datasources/schemas.ts';
import type { DataSourceService } from '../datasources/service.ts';
import { checkStatement, StatementError } from '../datasources/statement.ts';
import { checkSqlAuthor } from '../datasources/sql-authors.ts';
import { getDataSource } from '../datasources/store.ts';
import { notFound, validation } from '../errors.ts';
import { decodeCursor, toPage } from '../../kit/paging.ts';
import { DisplayText, IdParams, IdPosition, ListQuery, bearer, errors } from '../schemas.ts';
import { SavedQuery } from './schemas.ts';
import { namedColumnsResult, runAdHoc, runStored, sendJson } from './run.ts';
import {
  deleteSavedQuery,
  getSavedQuery,
  insertSavedQuery,
  listSavedQueries,
  updateSavedQuery,
  type SavedQueryRow,
} from './store.ts';

const tags = ['queries'];
const Description = Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$' });
const DataSourceId = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'id of a data source of the tenant',
});

const saved = (r: SavedQueryRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  dataSourceId: r.data_source_id,
  query: r.query,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/**
 * Ad-hoc SQL (`POST /query`, editors) and saved queries: editors save and change them, viewers list and run them with
 * parameter values only, which is how a viewer gets data without being able to write SQL.
 */
export function registerQueryRoutes(app: App, ctx: DashboardContext, sources: DataSourceService): void {
  const { db } = ctx;

  const dataSource = async (tenantId: number, id: number) => {
    const row = await getDataSource(db, tenantId, id);
    if (!row) throw notFound('data source');
    return row;
  };
  const load = async (tenantId: number, id: number) => {
    const row = await getSavedQuery(db, tenantId, id);
    if (!row) throw notFound('saved query');
    return row;
  };
  const checkText = (query: string, type: DataSourceType) => {
    try {
      checkStatement(query, type);
    } catch (err) {
      if (err instanceof StatementError) throw validation(err.message);
      throw err;
    }
  };

  app.post(
    '/api/v1/query',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'runQuery',
        tags,
        security: bearer,
        summary: 'Run ad-hoc SQL on a data source (editor)',
        body: Type.Object(
          { dataSourceId: DataSourceId, query: QueryText, params: Type.Optional(Parameters), maxRows: MaxRows },
          { additionalProperties: false },
        ),
        response: { 200: QueryResult, ...errors(400, 401, 403, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const { dataSourceId, query, params = {}, maxRows } = request.body;
      const row = await dataSource(me.tenantId, dataSourceId);
      const result = await runAdHoc(db, sources, request, row, {
        query,
        parameters: params as Record<string, unknown>,
        maxRows,
        signal: clientGoneSignal(reply),
      });
      return sendJson(reply, namedColumnsResult(result));
    },
  );

  app.get(
    '/api/v1/queries',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listSavedQueries',
        tags,
        security: bearer,
        summary: 'Saved queries of the tenant, oldest first',
        querystring: Type.Object(
          { ...ListQuery.properties, dataSourceId: Type.Optional(DataSourceId) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(SavedQuery), next: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { limit, cursor, dataSourceId } = request.query;
      const rows = await listSavedQueries(db, currentUser(request).tenantId, {
        limit: limit + 1,
        after: decodeCursor(cursor, IdPosition)?.[0] ?? 0,
        dataSourceId,
      });
      return toPage(rows, limit, (r) => [r.id], saved);
    },
  );

  app.get(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getSavedQuery',
        tags,
        security: bearer,
        summary: 'A saved query',
        params: IdParams,
        response: { 200: SavedQuery, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => saved(await load(currentUser(request).tenantId, request.params.id)),
  );

  app.post(
    '/api/v1/queries',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createSavedQuery',
        tags,
        security: bearer,
        summary: 'Save a query (editor)',
        body: Type.Object(
          {
            name: DisplayText(200),
            description: Type.Optional(Description),
            dataSourceId: DataSourceId,
            query: QueryText,
          },
          { additionalProperties: false },
        ),
        response: { 201: SavedQuery, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const b = request.body;
      const source = await dataSource(me.tenantId, b.dataSourceId);
      checkSqlAuthor(me, source, 'query');
      checkText(b.query, source.type);
      const row = await db.transaction(async (tx) => {
        const created = await insertSavedQuery(tx, {
          tenantId: me.tenantId,
          dataSourceId: b.dataSourceId,
          name: b.name.trim(),
          description: b.description ?? null,
          query: b.query,
          createdBy: me.id,
        });
        await recordAudit(tx, {
          ...actor(request),
          action: 'savedquery.create',
          targetType: 'savedquery',
          targetId: created.id,
          details: { name: created.name, dataSourceId: b.dataSourceId, query: b.query },
        });
        return created;
      });
      reply.header('location', `/api/v1/queries/${row.id}`);
      return reply.code(201).send(saved(row));
    },
  );

  app.put(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateSavedQuery',
        tags,
        security: bearer,
        summary: 'Change a saved query (editor); only the fields given change',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(DisplayText(200)),
            description: Type.Optional(Type.Union([Type.Null(), Description], { description: 'null removes it' })),
            dataSourceId: Type.Optional(DataSourceId),
            query: Type.Optional(QueryText),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: SavedQuery, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      const b = request.body;
      const current = await load(me.tenantId, request.params.id);
      const source = await dataSource(me.tenantId, b.dataSourceId ?? current.data_source_id);
      if (b.query !== undefined || b.dataSourceId !== undefined) {
        checkSqlAuthor(me, source, b.query !== undefined ? 'query' : 'dataSourceId');
        checkText(b.query ?? current.query, source.type);
      }
      const row = await db.transaction(async (tx) => {
        const updated = await updateSavedQuery(tx, current.id, {
          dataSourceId: b.dataSourceId ?? current.data_source_id,
          name: b.name?.trim() ?? current.name,
          description: b.description === undefined ? current.description : b.description,
          query: b.query ?? current.query,
        });
        await recordAudit(tx, {
          ...actor(request),
          action: 'savedquery.update',
          targetType: 'savedquery',
          targetId: current.id,
          details: { fields: Object.keys(b), ...(b.query !== undefined ? { query: b.query } : {}) },
        });
        return updated;
      });
      return saved(row);
    },
  );

  app.delete(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteSavedQuery',
        tags,
        security: bearer,
        summary: 'Delete a saved query (editor)',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const current = await load(currentUser(request).tenantId, request.params.id);
      await db.transaction(async (tx) => {
        await deleteSavedQuery(tx, current.id);
        await recordAudit(tx, {
          ...actor(request),
          action: 'savedquery.delete',
          targetType: 'savedquery',
          targetId: current.id,
          details: { name: current.name },
        });
      });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/queries/:id/run',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'runSavedQuery',
        tags,
        security: bearer,
        summary: 'Run a saved query with parameter values (viewer and above)',
        params: IdParams,
        body: Type.Object({ params: Type.Optional(Parameters), maxRows: MaxRows }, { additionalProperties: false }),
        response: { 200: QueryResult, ...errors(400, 401, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const current = await load(me.tenantId, request.params.id);
      const row = await dataSource(me.tenantId, current.data_source_id);
      const { params = {}, maxRows = DEFAULT_MAX_ROWS } = request.body ?? {};
      const result = await runStored(
        db,
        sources,
        request,
        row,
        {
          query: current.query,
          parameters: params as Record<string, unknown>,
          maxRows,
          signal: clientGoneSignal(reply),
        },
        { kind: 'saved', savedQueryId: current.id },
      );
      return sendJson(reply, namedColumnsResult(result));
    },
  );
}
