import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../kit/db.ts';
import { canEdit, canSee, type Who } from './dashboards/access.ts';
import { getDashboard, type DashboardRow } from './dashboards/store.ts';
import { getDataSource, type DataSourceRow } from './datasources/store.ts';
import { forbidden, notFound } from './errors.ts';
import { getSavedQuery, type SavedQueryRow } from './queries/store.ts';

/** The row, or 404 naming `what`: another tenant's row is simply not found. */
const found =
  <T>(what: string) =>
  (row: T | undefined): T => {
    if (!row) throw notFound(what);
    return row;
  };

/**
 * Dashboard `id` for `who` (a person, or a subscription's or alert rule's owner): every path to one dashboard comes
 * here, so the access rule (dashboards/access.ts) holds on each. One they may not see is 404, as another tenant's is;
 * `edit` on one they may see but not change is 403, as a viewer's change is. `forUpdate` locks the row for the
 * caller's transaction.
 */
export async function dashboardFor(
  db: Queryable,
  who: Who,
  id: number,
  o: { edit?: boolean; forUpdate?: boolean } = {},
): Promise<DashboardRow> {
  const row = await getDashboard(db, who.tenantId, id, o.forUpdate);
  if (!row || !canSee(row, who)) throw notFound('dashboard');
  if (o.edit && !canEdit(row, who)) throw forbidden('you may view this dashboard but not change it');
  return row;
}

/* A tenant's data source or saved query; `forUpdate` locks the row for the caller's transaction. */

export const dataSourceOf = (db: Queryable, tenantId: number, id: number, forUpdate = false): Promise<DataSourceRow> =>
  getDataSource(db, tenantId, id, forUpdate).then(found('data source'));

export const savedQueryOf = (db: Queryable, tenantId: number, id: number): Promise<SavedQueryRow> =>
  getSavedQuery(db, tenantId, id).then(found('saved query'));

/** Data sources the access check read with the caller's token (auth/access.ts `signedInOnSource`), by request. */
const readWithToken = new WeakMap<FastifyRequest, { id: number; row: DataSourceRow | null }>();

export function rememberDataSource(request: FastifyRequest, id: number, row: DataSourceRow | null): void {
  readWithToken.set(request, { id, row });
}

/**
 * The caller's tenant's data source `id`: the row the access check read with the token when it read that one (no
 * second wait on the database), otherwise read now. The same row and the same 404 either way.
 */
export function requestedDataSource(
  db: Queryable,
  request: FastifyRequest,
  tenantId: number,
  id: number,
): Promise<DataSourceRow> {
  const read = readWithToken.get(request);
  if (read?.id !== id) return dataSourceOf(db, tenantId, id);
  return Promise.resolve(read.row ?? undefined).then(found('data source'));
}
