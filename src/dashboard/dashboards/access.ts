import { roleAtLeast, type Role } from '../auth/roles.ts';
import type { DashboardRow } from './store.ts';

/**
 * THE rule of who may see and change a dashboard (docs/dashboard.md, "Access to a dashboard"); every path to a
 * dashboard goes through lookup.ts `dashboardFor` (one dashboard) or store.ts `listDashboards` (`visibleSql`, the
 * same rule in SQL). A dashboard not restricted is the whole tenant's, as roles say. A restricted one is seen only by
 * the tenant's admins (and owner), its creator and the people listed; it is changed only by those of them whose
 * tenant role is editor or above, except listed viewers. The list only narrows what a tenant role allows.
 */

/** Whoever acts: a person on a request, or the owner of a subscription or alert rule when it runs. */
export interface Who {
  id: number;
  tenantId: number;
  role: Role;
}

export type DashboardAccessRow = Pick<DashboardRow, 'restricted' | 'access_viewers' | 'access_editors' | 'created_by'>;

const alwaysSees = (row: DashboardAccessRow, who: Who) => roleAtLeast(who.role, 'admin') || row.created_by === who.id;

export function canSee(row: DashboardAccessRow, who: Who): boolean {
  return (
    !row.restricted ||
    alwaysSees(row, who) ||
    row.access_viewers.includes(who.id) ||
    row.access_editors.includes(who.id)
  );
}

export function canEdit(row: DashboardAccessRow, who: Who): boolean {
  if (!roleAtLeast(who.role, 'editor')) return false;
  return !row.restricted || alwaysSees(row, who) || row.access_editors.includes(who.id);
}

/**
 * `canSee` as a condition on `table` (a name or alias of `dashboards`) for lists; null for admins (nothing hidden). `param` adds the caller's id
 * to the query's parameters and gives its number.
 */
export function visibleSql(who: Who, param: () => number, table = 'dashboards'): string | null {
  if (roleAtLeast(who.role, 'admin')) return null;
  const n = param();
  const t = table;
  return `(NOT ${t}.restricted OR ${t}.created_by = $${n} OR $${n} = ANY(${t}.access_viewers) OR $${n} = ANY(${t}.access_editors))`;
}
