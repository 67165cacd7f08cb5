import type { Queryable } from '../../kit/db.ts';
import { openSealedString, randomToken, seal, sha256Hex } from '../../kit/crypto.ts';

export interface ShareRow {
  dashboard_id: number;
  tenant_id: number;
  token_sealed: string;
  created_by: number | null;
  created_at: Date;
}

const context = (dashboardId: number) => `dashboard-share:${dashboardId}`;
const COLUMNS = 'dashboard_id, tenant_id, token_sealed, created_by, created_at';

export async function findShare(db: Queryable, tenantId: number, dashboardId: number): Promise<ShareRow | undefined> {
  const r = await db.query<ShareRow>(
    `SELECT ${COLUMNS} FROM dashboard_shares WHERE tenant_id = $1 AND dashboard_id = $2`,
    [tenantId, dashboardId],
  );
  return r.rows[0];
}

/** The dashboard a public link's token opens, if the link still stands. */
export async function shareByToken(db: Queryable, token: string): Promise<ShareRow | undefined> {
  const r = await db.query<ShareRow>(`SELECT ${COLUMNS} FROM dashboard_shares WHERE token_hash = $1`, [
    sha256Hex(token),
  ]);
  return r.rows[0];
}

/** Makes the dashboard's link, or answers the one it has (a second editor asking gets the same link). */
export async function ensureShare(
  db: Queryable,
  key: Buffer,
  tenantId: number,
  dashboardId: number,
  userId: number,
): Promise<{ row: ShareRow; created: boolean }> {
  const token = randomToken(32);
  const r = await db.query<ShareRow>(
    `INSERT INTO dashboard_shares (dashboard_id, tenant_id, token_hash, token_sealed, created_by) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (dashboard_id) DO NOTHING RETURNING ${COLUMNS}`,
    [dashboardId, tenantId, sha256Hex(token), seal(key, token, context(dashboardId)), userId],
  );
  if (r.rows[0]) return { row: r.rows[0], created: true };
  return { row: (await findShare(db, tenantId, dashboardId))!, created: false };
}

export async function deleteShare(db: Queryable, tenantId: number, dashboardId: number): Promise<boolean> {
  const r = await db.query('DELETE FROM dashboard_shares WHERE tenant_id = $1 AND dashboard_id = $2', [
    tenantId,
    dashboardId,
  ]);
  return r.rowCount > 0;
}

export const shareToken = (key: Buffer, row: ShareRow): string =>
  openSealedString(key, row.token_sealed, context(row.dashboard_id));
