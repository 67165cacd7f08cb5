import type { ApiUser } from '../api/types.ts';

const RANK = { viewer: 0, editor: 1, admin: 2, owner: 3 } as const;

/** The service's role order (owner > admin > editor > viewer): what the screens offer follows what the API allows. */
export const atLeast = (me: ApiUser, role: keyof typeof RANK) => RANK[me.role] >= RANK[role];

/** Who a data source lets write SQL on it (its `sqlRole`), as the screens say it. */
export const SQL_WRITERS = {
  editor: 'editors, admins and owners',
  admin: 'admins and owners',
  owner: 'owners only',
} as const;

/** Whether `me` may write SQL on the source: ad hoc, saved queries, widgets (the API refuses otherwise with 403). */
export const mayWriteSql = (me: ApiUser, source: { sqlRole: keyof typeof SQL_WRITERS }) => atLeast(me, source.sqlRole);
