import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import type { AuditResult } from '../result/types.ts';
import { cancelJob, getJob, type JobRecord } from './store.ts';

/** A caller reaches only its own jobs: another's is as absent as one that never was. */
const noAudit = (id: string) => new HttpError(404, codeForStatus(404), `no audit ${id}`);

/** The caller's job, or 404. */
export async function ownJob(db: Database, owner: string, id: string): Promise<JobRecord> {
  const job = await getJob(db, owner, id);
  if (!job) throw noAudit(id);
  return job;
}

/** Cancels the caller's pending or running job; cancelling a cancelled one again is no error, a finished one is 409. */
export async function cancelOwnJob(db: Database, owner: string, id: string): Promise<JobRecord> {
  const outcome = await cancelJob(db, owner, id);
  if (!outcome) throw noAudit(id);
  if (!outcome.changed && outcome.record.status !== 'cancelled') {
    throw new HttpError(
      409,
      codeForStatus(409),
      `the audit is already ${outcome.record.status} and cannot be cancelled`,
    );
  }
  return outcome.record;
}

/** The completed result of one of the caller's jobs, or 404/409 naming why there is none. */
export async function completedResult(db: Database, owner: string, id: string): Promise<AuditResult> {
  const job = await ownJob(db, owner, id);
  if (job.status !== 'completed' || !job.result) {
    throw new HttpError(
      409,
      codeForStatus(409),
      `the audit is ${job.status}; its report exists once it has completed${job.error ? ` (${job.error})` : ''}`,
    );
  }
  return job.result;
}
