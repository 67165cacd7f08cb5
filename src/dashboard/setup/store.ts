import type { Queryable } from '../../kit/db.ts';

/** The lock every way of making the first owner takes (this form, DASHBOARD_BOOTSTRAP_OWNER): one of them wins. */
export async function lockFirstOwner(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard.bootstrap'))`);
}

/** Whether the installation has no user at all yet (the first-run form stays open only then). */
export async function noUsersYet(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM users) AS any`);
  return !rows[0]!.any;
}
