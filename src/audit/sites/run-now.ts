import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { queueAudit, type QueueDeps } from '../jobs/queue.ts';
import { SiteBusyError, type JobRecord } from '../jobs/store.ts';
import { ownSite } from './owned.ts';

/**
 * Queues a run of the caller's site with its settings; 409 while one is pending or running (a second click, or a
 * schedule's run under way), so a site never audits itself twice at once.
 */
export async function runSiteNow(deps: QueueDeps, owner: string, siteId: string): Promise<JobRecord> {
  const site = await ownSite(deps.db, owner, siteId);
  try {
    return await queueAudit(deps, owner, { url: site.url, config: site.config, siteId: site.id });
  } catch (err) {
    if (err instanceof SiteBusyError) throw new HttpError(409, codeForStatus(409), err.message);
    throw err;
  }
}
