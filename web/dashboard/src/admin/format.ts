import type { ApiUser } from '../api/types.ts';

export type Role = ApiUser['role'];
export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin', 'owner'];
export const ROLE_NAMES: Record<Role, string> = { viewer: 'Viewer', editor: 'Editor', admin: 'Admin', owner: 'Owner' };

/** The roles the caller may give: only an owner makes owners (the API refuses an admin with 403 anyway). */
export const assignableRoles = (me: ApiUser): readonly Role[] =>
  me.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');

/** Whether the caller may change this user: an admin never touches an owner, and nobody changes themselves here. */
export const mayChange = (me: ApiUser, user: ApiUser): boolean =>
  user.id !== me.id && (me.role === 'owner' || user.role !== 'owner');

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export const PLAN_NAMES: Record<Plan, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };

/** Lower-case letters, digits and single hyphens, as the API's slugs. */
export const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
