import { Type } from 'typebox';
import { errorResponses } from '../../kit/errors.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { AuditConfigSchema, AuditResultSchema, AuditStatsSchema } from '../result/schema.ts';
import type { JobRecord } from './store.ts';

export const JobStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);

const jobFields = {
  id: Type.String(),
  status: JobStatus,
  url: Type.String(),
  branch: Type.Union([Type.String(), Type.Null()], {
    description: 'The branch a CI run audited (`platform audit run --branch`); null for other jobs',
  }),
  config: AuditConfigSchema,
  attempts: Type.Integer({ description: 'Times a worker started the job' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the job failed (or why its last attempt failed)',
  }),
  createdAt: Timestamp,
  startedAt: Type.Union([Timestamp, Type.Null()]),
  finishedAt: Type.Union([Timestamp, Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()], {
    description: "The start page's title once completed, as the audited site wrote it (untrusted text)",
  }),
  score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description: "The result's score once completed; null before",
  }),
  stats: Type.Union([AuditStatsSchema, Type.Null()], {
    description: "The result's stats (failures by impact) once completed; null before",
  }),
  progress: Type.Object(
    {
      pagesDone: Type.Integer({ description: 'Pages recorded so far, audited or failed' }),
      pagesMax: Type.Integer({ description: 'Pages the audit records at most: crawl.maxPages, or 1 without crawling' }),
    },
    { description: 'How far the audit has got: updated as each page is recorded' },
  ),
};
export const JobSummary = Type.Object(jobFields);
export const JobDetail = Type.Object({ ...jobFields, result: Type.Optional(AuditResultSchema) });
export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** The errors every job route may answer. */
export const jobErrors = errorResponses(400, 401, 403, 404, 409, 429, 503);

/** A job as lists and cancellation answer it: without its result. */
export function jobSummary(job: JobRecord) {
  const { result: _result, pagesDone, ...rest } = job;
  return {
    ...rest,
    progress: { pagesDone, pagesMax: job.config.crawl.enabled ? job.config.crawl.maxPages : 1 },
  };
}

/** A job as `GET /api/v1/audits/{id}` answers it: with its result once completed. */
export function jobDetail(job: JobRecord) {
  const summary = jobSummary(job);
  return job.result && job.status === 'completed' ? { ...summary, result: job.result } : summary;
}
