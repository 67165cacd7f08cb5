import type { ApiUser } from '../api/types.ts';

const RANK = { viewer: 0, editor: 1, admin: 2, owner: 3 } as const;

/** The service's role order (owner > admin > editor > viewer): what the screens offer follows what the API allows. */
export const atLeast = (me: ApiUser, role: keyof typeof RANK) => RANK[me.role] >= RANK[role];
