import type { Role } from './roles.ts';

export type Plan = 'free' | 'pro' | 'enterprise';
export const PLANS = ['free', 'pro', 'enterprise'] as const satisfies readonly Plan[];

/** Who is calling, as the access check established it: role and plan are read fresh on every request. */
export interface AuthUser {
  id: number;
  tenantId: number;
  role: Role;
  email: string;
  plan: Plan;
  /** The hash of the access token the request carried (absent when authentication is disabled). */
  tokenHash?: string | undefined;
  /** A subscription render's credential (RENDER_SESSION): it may only read what a viewer reads (auth/access.ts). */
  readOnly?: boolean;
}

/** The session provider of a subscription render's credential (subscriptions/render.ts). */
export const RENDER_SESSION = 'subscription-render';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `role` access check (auth/access.ts); null on routes open to everyone. */
    user: AuthUser | null;
  }
}
