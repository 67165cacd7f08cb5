import type { Queryable } from '../kit/db.ts';
import { getDashboard, type DashboardRow } from './dashboards/store.ts';
import { getDataSource, type DataSourceRow } from './datasources/store.ts';
import { notFound } from './errors.ts';
import { getSavedQuery, type SavedQueryRow } from './queries/store.ts';

/*
 * A tenant's dashboard, data source or saved query, or 404: another tenant's row is simply not found. `forUpdate`
 * locks the row for the caller's transaction.
 */

export async function dashboardOf(
  db: Queryable,
  tenantId: number,
  id: number,
  forUpdate = false,
): Promise<DashboardRow> {
  const row = await getDashboard(db, tenantId, id, forUpdate);
  if (!row) throw notFound('dashboard');
  return row;
}

export async function dataSourceOf(
  db: Queryable,
  tenantId: number,
  id: number,
  forUpdate = false,
): Promise<DataSourceRow> {
  const row = await getDataSource(db, tenantId, id, forUpdate);
  if (!row) throw notFound('data source');
  return row;
}

export async function savedQueryOf(db: Queryable, tenantId: number, id: number): Promise<SavedQueryRow> {
  const row = await getSavedQuery(db, tenantId, id);
  if (!row) throw notFound('saved query');
  return row;
}
