import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { HttpError } from '../../kit/errors.ts';
import { currentUser } from '../auth/authenticate.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { DisplayText, IdParams, ListQuery, Slug, bearer, errors } from '../schemas.ts';
import { checkDefinition, Definition } from './definition.ts';
import { checkWidgetSql } from '../datasources/sql-authors.ts';
import { Created, Full, Summary, VersionSummary } from './schemas.ts';
import {
  deleteDashboard,
  getDashboard,
  getVersion,
  insertDashboard,
  listDashboards,
  listVersions,
  SlugTaken,
  updateDashboard,
  type DashboardRow,
} from './store.ts';

const tags = ['dashboards'];
const Description = Type.String({ maxLength: 2000, pattern: '^[^\\u0000]*$' });

const VersionPosition = Type.Tuple([Type.Integer({ minimum: 1, maximum: 2_147_483_647 })]);
const VersionParams = Type.Object({
  ...IdParams.properties,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

function summary(
  r: Pick<DashboardRow, 'id' | 'slug' | 'title' | 'description' | 'version' | 'created_at' | 'updated_at'>,
) {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    ...(r.description !== null ? { description: r.description } : {}),
    version: r.version,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const full = (r: DashboardRow) => ({ ...summary(r), definition: r.definition });

/** A strong entity tag naming the dashboard and its version. */
const etagOf = (r: Pick<DashboardRow, 'id' | 'version'>) => `"${r.id}-${r.version}"`;

/** If-Match (RFC 9110): `*` or a list of strong tags, one of which must be the current one. */
function checkIfMatch(request: FastifyRequest, current: DashboardRow): void {
  const header = request.headers['if-match'];
  if (header === undefined) return;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(etagOf(current))) return;
  throw new HttpError(
    412,
    'PRECONDITION_FAILED',
    `the dashboard has changed: it is at version ${current.version} (ETag ${etagOf(current)}); fetch it again and reapply your change`,
  );
}

function sendWithTag(reply: FastifyReply, r: DashboardRow) {
  reply.header('etag', etagOf(r));
  return full(r);
}

/**
 * Dashboards of the caller's tenant: viewers read, editors write. Every write makes a new version
 * (kept in dashboard_versions) and changes the ETag; a write with a stale If-Match is refused 412.
 */
export function registerDashboardRoutes(app: App, ctx: DashboardContext): void {
  const { db } = ctx;

  app.get(
    '/api/v1/dashboards',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDashboards',
        tags,
        security: bearer,
        summary: 'Dashboards of the tenant, without their definitions',
        querystring: Type.Object(
          {
            page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
            perPage: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            search: Type.Optional(
              Type.String({
                maxLength: 200,
                pattern: '^[^\\u0000]*$',
                description: 'matches title and description, case-insensitive',
              }),
            ),
            sort: Type.Union([Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('title')], {
              default: 'created_at',
            }),
            order: Type.Optional(
              Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
                description: 'desc for dates, asc for title by default',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(Summary),
            meta: Type.Object({
              total: Type.Integer(),
              page: Type.Integer(),
              perPage: Type.Integer(),
              totalPages: Type.Integer(),
            }),
          }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { page, perPage, search, sort } = request.query;
      const order = request.query.order ?? (sort === 'title' ? 'asc' : 'desc');
      const term = search?.trim();
      const { rows, total } = await listDashboards(db, {
        tenantId,
        page,
        perPage,
        search: term ? term : undefined,
        sort,
        order,
      });
      return { data: rows.map(summary), meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } };
    },
  );

  app.get(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDashboard',
        tags,
        security: bearer,
        summary: 'A dashboard with its definition; ETag names its version',
        params: IdParams,
        response: { 200: Full, 304: Type.Null(), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await getDashboard(db, currentUser(request).tenantId, request.params.id);
      if (!row) throw notFound('dashboard');
      const ifNone = request.headers['if-none-match'];
      if (
        ifNone &&
        ifNone
          .split(',')
          .map((t) => t.trim().replace(/^W\//, ''))
          .includes(etagOf(row))
      ) {
        reply.header('etag', etagOf(row));
        return reply.code(304).send(null);
      }
      return sendWithTag(reply, row);
    },
  );

  app.post(
    '/api/v1/dashboards',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createDashboard',
        tags,
        security: bearer,
        summary: 'Create a dashboard (version 1)',
        body: Type.Object(
          { slug: Slug, title: DisplayText(200), description: Type.Optional(Description), definition: Definition },
          { additionalProperties: false },
        ),
        response: { 201: Created, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const { slug, title, description, definition } = request.body;
      checkDefinition(definition);
      await checkWidgetSql(db, me, definition);
      const row = await db.transaction(async (tx) => {
        let created: DashboardRow;
        try {
          created = await insertDashboard(tx, {
            tenantId: me.tenantId,
            userId: me.id,
            slug,
            title: title.trim(),
            description: description ?? null,
            definition,
          });
        } catch (err) {
          if (err instanceof SlugTaken) throw conflict(err.message);
          throw err;
        }
        await recordAudit(tx, {
          ...actor(request),
          action: 'dashboard.create',
          targetType: 'dashboard',
          targetId: created.id,
          details: { slug, title: created.title },
        });
        return created;
      });
      reply.header('etag', etagOf(row)).header('location', `/api/v1/dashboards/${row.id}`);
      return reply.code(201).send({
        id: row.id,
        slug: row.slug,
        title: row.title,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
      });
    },
  );

  app.put(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateDashboard',
        tags,
        security: bearer,
        summary:
          'Change some fields (only those given); makes a new version. Send If-Match with the ETag you read to refuse lost updates (412).',
        params: IdParams,
        headers: Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) }),
        body: Type.Object(
          {
            slug: Type.Optional(Slug),
            title: Type.Optional(DisplayText(200)),
            description: Type.Optional(Type.Union([Type.Null(), Description], { description: 'null removes it' })),
            definition: Type.Optional(Definition),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: Full, ...errors(400, 401, 403, 404, 409, 412, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const body = request.body;
      if (body.definition) checkDefinition(body.definition);
      const row = await db.transaction(async (tx) => {
        const current = await getDashboard(tx, me.tenantId, request.params.id, true);
        if (!current) throw notFound('dashboard');
        checkIfMatch(request, current);
        if (body.definition) await checkWidgetSql(tx, me, body.definition, current.definition);
        const next = {
          slug: body.slug ?? current.slug,
          title: body.title?.trim() ?? current.title,
          description: body.description === undefined ? current.description : body.description,
          definition: body.definition ?? current.definition,
        };
        let updated: DashboardRow;
        try {
          updated = await updateDashboard(tx, current, next, me.id);
        } catch (err) {
          if (err instanceof SlugTaken) throw conflict(err.message);
          throw err;
        }
        await recordAudit(tx, {
          ...actor(request),
          action: 'dashboard.update',
          targetType: 'dashboard',
          targetId: current.id,
          details: { fields: Object.keys(body), version: updated.version },
        });
        return updated;
      });
      return sendWithTag(reply, row);
    },
  );

  app.delete(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteDashboard',
        tags,
        security: bearer,
        summary: 'Delete a dashboard and its versions',
        params: IdParams,
        headers: Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) }),
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 412, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      await db.transaction(async (tx) => {
        const current = await getDashboard(tx, me.tenantId, request.params.id, true);
        if (!current) throw notFound('dashboard');
        checkIfMatch(request, current);
        await deleteDashboard(tx, me.tenantId, current.id);
        await recordAudit(tx, {
          ...actor(request),
          action: 'dashboard.delete',
          targetType: 'dashboard',
          targetId: current.id,
          details: { slug: current.slug, title: current.title, version: current.version },
        });
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/dashboards/:id/versions',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDashboardVersions',
        tags,
        security: bearer,
        summary: 'Earlier and current versions, newest first',
        params: IdParams,
        querystring: Type.Object(ListQuery.properties, { additionalProperties: false }),
        response: { 200: pageOf(VersionSummary), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const d = await getDashboard(db, currentUser(request).tenantId, request.params.id);
      if (!d) throw notFound('dashboard');
      const { limit, cursor } = request.query;
      const rows = await listVersions(db, d.id, decodeCursor(cursor, VersionPosition)?.[0], limit + 1);
      return toPage(
        rows,
        limit,
        (v) => [v.version],
        (v) => ({
          version: v.version,
          slug: v.slug,
          title: v.title,
          createdBy: v.created_by,
          createdAt: v.created_at.toISOString(),
          restoredFrom: v.restored_from,
        }),
      );
    },
  );

  app.get(
    '/api/v1/dashboards/:id/versions/:version',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDashboardVersion',
        tags,
        security: bearer,
        summary: 'One version of a dashboard, with its definition',
        params: VersionParams,
        response: {
          200: Type.Object({
            ...VersionSummary.properties,
            description: Type.Optional(Type.String()),
            definition: Definition,
          }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const d = await getDashboard(db, currentUser(request).tenantId, request.params.id);
      if (!d) throw notFound('dashboard');
      const v = await getVersion(db, d.id, request.params.version);
      if (!v) throw notFound('version');
      return {
        version: v.version,
        slug: v.slug,
        title: v.title,
        ...(v.description !== null ? { description: v.description } : {}),
        definition: v.definition,
        createdBy: v.created_by,
        createdAt: v.created_at.toISOString(),
        restoredFrom: v.restored_from,
      };
    },
  );

  app.post(
    '/api/v1/dashboards/:id/versions/:version/restore',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'restoreDashboardVersion',
        tags,
        security: bearer,
        summary: "Bring back an earlier version's title, description and definition as a new version (the slug stays)",
        params: VersionParams,
        headers: Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) }),
        response: { 200: Full, ...errors(400, 401, 403, 404, 412, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const row = await db.transaction(async (tx) => {
        const current = await getDashboard(tx, me.tenantId, request.params.id, true);
        if (!current) throw notFound('dashboard');
        checkIfMatch(request, current);
        const v = await getVersion(tx, current.id, request.params.version);
        if (!v) throw notFound('version');
        await checkWidgetSql(tx, me, v.definition, current.definition);
        const updated = await updateDashboard(
          tx,
          current,
          { slug: current.slug, title: v.title, description: v.description, definition: v.definition },
          me.id,
          v.version,
        );
        await recordAudit(tx, {
          ...actor(request),
          action: 'dashboard.restore',
          targetType: 'dashboard',
          targetId: current.id,
          details: { restoredVersion: v.version, version: updated.version },
        });
        return updated;
      });
      return sendWithTag(reply, row);
    },
  );
}
