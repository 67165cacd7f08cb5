import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus, errorResponses } from '../../kit/errors.ts';
import { CALLER } from '../auth/access.ts';
import { decodeCursor, encodeCursor, pageQuery } from '../../kit/paging.ts';
import { parseAuditUrl, resolveConfig, badRequest, type ConfigLimits } from '../request/resolve.ts';
import { CreateJobBody } from '../request/schema.ts';
import { AuditConfigSchema, AuditResultSchema } from '../result/schema.ts';
import type { AuditJobStatus } from '../result/types.ts';
import type { AddressPolicy } from '../safety/address-policy.ts';
import { RefusedDestinationError } from '../safety/address-policy.ts';
import { cancelJob, createJob, getJob, listJobs, QueueFullError, type JobRecord } from './store.ts';
import type { JobWorker } from './worker.ts';

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const jobFields = {
  id: Type.String(),
  status: Status,
  url: Type.String(),
  config: AuditConfigSchema,
  attempts: Type.Integer({ description: 'Times a worker started the job' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the job failed (or why its last attempt failed)',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Timestamp,
  finishedAt: Timestamp,
};
export const JobSummary = Type.Object(jobFields);
export const JobDetail = Type.Object({ ...jobFields, result: Type.Optional(AuditResultSchema) });
export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const errors = errorResponses(400, 401, 403, 404, 409, 429, 503);
// A JSON body also meets the kit's body checks: over 64 KB (413) or not sent as application/json (415).
const bodyErrors = errorResponses(413, 415);
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

function summary(job: JobRecord) {
  const { result: _result, ...rest } = job;
  return rest;
}

function detail(job: JobRecord) {
  const { result, ...rest } = job;
  return result && job.status === 'completed' ? { ...rest, result } : rest;
}

/** A page ends at a job's insertion sequence; the cursor holds it as the kit's opaque cursor. */
const CursorShape = Type.Tuple([Type.Integer({ minimum: 0 })]);

export interface JobRouteDeps {
  db: Database;
  worker: JobWorker;
  policy: AddressPolicy;
  limits: ConfigLimits;
  maxQueued: number;
  /** AUDIT_PUBLIC_URL: the service's address as clients reach it (behind a proxy, with the prefix it strips). */
  publicUrl?: string | undefined;
}

/** The job interface of Document 3 under /api/v1/audits. */
export function registerJobRoutes(app: App, deps: JobRouteDeps): void {
  const { db } = deps;
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/api/v1/audits',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'createAudit',
          summary: 'Queue an audit; answers at once with its id and status pending',
          tags: ['audits'],
          security,
          body: CreateJobBody,
          response: {
            202: Type.Object(
              { id: Type.String(), status: Type.Literal('pending') },
              {
                description: 'The job is queued',
                headers: {
                  location: Type.String({
                    description: 'The job: /api/v1/audits/{id}, under AUDIT_PUBLIC_URL when it is set',
                  }),
                },
              },
            ),
            ...errors,
            ...bodyErrors,
          },
        },
      },
      async (request, reply) => {
        const url = parseAuditUrl(request.body.url);
        const config = resolveConfig(request.body.config ?? {}, deps.limits);
        try {
          await deps.policy.resolve(url.hostname);
        } catch (err) {
          if (err instanceof RefusedDestinationError) throw badRequest(`url cannot be audited: ${err.message}`);
          throw err;
        }
        let job: JobRecord;
        try {
          job = await createJob(db, { owner: request.auditOwner, url: url.href, config, maxQueued: deps.maxQueued });
        } catch (err) {
          if (err instanceof QueueFullError)
            throw new HttpError(429, codeForStatus(429), err.message, { headers: { 'retry-after': '30' } });
          throw err;
        }
        deps.worker.wake();
        // Behind a proxy that strips a prefix (https://gw.example/audit/…), a bare path would lead the client to the
        // proxy's root; with AUDIT_PUBLIC_URL set the Location is absolute under it.
        reply.header('location', `${deps.publicUrl?.replace(/\/+$/, '') ?? ''}/api/v1/audits/${job.id}`);
        return reply.code(202).send({ id: job.id, status: 'pending' as const });
      },
    );

    api.get(
      '/api/v1/audits',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'listAudits',
          summary: "The caller's audits, newest first, paged",
          description:
            'Finished jobs are deleted AUDIT_RETENTION_DAYS days (90 by default) after they finished, and are no longer listed.',
          tags: ['audits'],
          security,
          querystring: Type.Object({ ...pageQuery(), status: Type.Optional(Status) }, { additionalProperties: false }),
          response: {
            200: Type.Object({ items: Type.Array(JobSummary), next: Type.Union([Type.String(), Type.Null()]) }),
            ...errors,
          },
        },
      },
      async (request) => {
        const limit = request.query.limit;
        const before = decodeCursor(request.query.cursor, CursorShape)?.[0] ?? null;
        const page = await listJobs(db, request.auditOwner, {
          limit,
          before,
          status: (request.query.status as AuditJobStatus | undefined) ?? null,
        });
        return {
          items: page.items.map(summary),
          next: page.more && page.last !== null ? encodeCursor([page.last]) : null,
        };
      },
    );

    api.get(
      '/api/v1/audits/:id',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'getAudit',
          summary: 'One audit, with its result once completed',
          description:
            'A finished job (completed, failed, cancelled) is deleted with its result AUDIT_RETENTION_DAYS days (90 by default) after it finished; it is then 404.',
          tags: ['audits'],
          security,
          params: JobIdParams,
          response: { 200: JobDetail, ...errors },
        },
      },
      async (request) => {
        const job = await getJob(db, request.auditOwner, request.params.id);
        if (!job) throw new HttpError(404, codeForStatus(404), `no audit ${request.params.id}`);
        return detail(job);
      },
    );

    api.delete(
      '/api/v1/audits/:id',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'cancelAudit',
          summary: 'Cancel a pending audit or stop a running one',
          description:
            'Cancels; it never deletes. A job already completed or failed is 409. Finished jobs are deleted by the retention period (AUDIT_RETENTION_DAYS), or by an operator with `platform audit jobs delete`.',
          tags: ['audits'],
          security,
          params: JobIdParams,
          response: { 200: JobSummary, ...errors },
        },
      },
      async (request) => {
        const outcome = await cancelJob(db, request.auditOwner, request.params.id);
        if (!outcome) throw new HttpError(404, codeForStatus(404), `no audit ${request.params.id}`);
        if (!outcome.changed && outcome.record.status !== 'cancelled') {
          throw new HttpError(
            409,
            codeForStatus(409),
            `the audit is already ${outcome.record.status} and cannot be cancelled`,
          );
        }
        deps.worker.cancelLocal(request.params.id);
        return summary(outcome.record);
      },
    );
  });
}
