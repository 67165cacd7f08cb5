import type { Queryable } from '../kit/db.ts';
import { getDashboard, type DashboardRow } from './dashboards/store.ts';
import { getDataSource, type DataSourceRow } from './datasources/store.ts';
import { notFound } from './errors.ts';
import { getSavedQuery, type SavedQueryRow } from './queries/store.ts';

/** The row, or 404 naming `what`: another tenant's row is simply not found. */
const found =
  <T>(what: string) =>
  (row: T | undefined): T => {
    if (!row) throw notFound(what);
    return row;
  };

/* A tenant's dashboard, data source or saved query; `forUpdate` locks the row for the caller's transaction. */

export const dashboardOf = (db: Queryable, tenantId: number, id: number, forUpdate = false): Promise<DashboardRow> =>
  getDashboard(db, tenantId, id, forUpdate).then(found('dashboard'));

export const dataSourceOf = (db: Queryable, tenantId: number, id: number, forUpdate = false): Promise<DataSourceRow> =>
  getDataSource(db, tenantId, id, forUpdate).then(found('data source'));

export const savedQueryOf = (db: Queryable, tenantId: number, id: number): Promise<SavedQueryRow> =>
  getSavedQuery(db, tenantId, id).then(found('saved query'));
