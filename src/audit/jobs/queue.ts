import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { auditRequest } from '../request/audit-request.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import type { RequestedConfig } from '../request/schema.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { missingSecrets } from '../secrets/store.ts';
import { createJob, QueueFullError, type JobRecord } from './store.ts';
import type { JobWorker } from './worker.ts';

export interface QueueDeps {
  db: Database;
  worker: JobWorker;
  policy: AddressPolicy;
  limits: ConfigLimits;
  /** Jobs one caller may have pending or running at once (AUDIT_MAX_QUEUED_PER_KEY). */
  maxQueued: number;
}

/** Stores the caller's audit as a pending job and wakes the worker; 400 for a bad request, 429 past the caller's share. */
export async function queueAudit(
  deps: QueueDeps,
  owner: string,
  body: { url: string; config?: RequestedConfig | undefined; branch?: string | undefined },
): Promise<JobRecord> {
  const { url, config } = await auditRequest(body.url, body.config ?? {}, {
    limits: deps.limits,
    policy: deps.policy,
    missingSecrets: (names) => missingSecrets(deps.db, owner, names),
  });
  let job: JobRecord;
  try {
    job = await createJob(deps.db, {
      owner,
      url: url.href,
      config,
      branch: body.branch ?? null,
      maxQueued: deps.maxQueued,
    });
  } catch (err) {
    if (err instanceof QueueFullError)
      throw new HttpError(429, codeForStatus(429), err.message, { headers: { 'retry-after': '30' } });
    throw err;
  }
  deps.worker.wake();
  return job;
}
