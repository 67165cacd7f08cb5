import type { Queryable } from '../../kit/db.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { getSite, type SiteRecord } from './store.ts';

/** Another caller's site is as absent as one that never was. */
export const noSite = (id: string) => new HttpError(404, codeForStatus(404), `no site ${id}`);

/** The caller's site, or 404. */
export async function ownSite(db: Queryable, owner: string, id: string): Promise<SiteRecord> {
  const site = await getSite(db, owner, id);
  if (!site) throw noSite(id);
  return site;
}
