import { Type } from 'typebox';
import { errorResponses } from '../../kit/errors.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { AuditConfigSchema, AuditResultSchema } from '../result/schema.ts';
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
};
export const JobSummary = Type.Object(jobFields);
export const JobDetail = Type.Object({ ...jobFields, result: Type.Optional(AuditResultSchema) });
export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** The errors every job route may answer. */
export const jobErrors = errorResponses(400, 401, 403, 404, 409, 429, 503);

/** A job as lists and cancellation answer it: without its result. */
export function jobSummary(job: JobRecord): Omit<JobRecord, 'result'> {
  const { result: _result, ...rest } = job;
  return rest;
}

/** A job as `GET /api/v1/audits/{id}` answers it: with its result once completed. */
export function jobDetail(job: JobRecord) {
  const { result, ...rest } = job;
  return result && job.status === 'completed' ? { ...rest, result } : rest;
}
