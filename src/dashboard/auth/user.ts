import type { Role } from './roles.ts';

export type Plan = 'free' | 'pro' | 'enterprise';
export const PLANS = ['free', 'pro', 'enterprise'] as const satisfies readonly Plan[];

/** Who is calling, as the authentication hook established it: role and plan are read fresh on every request. */
export interface AuthUser {
  id: number;
  tenantId: number;
  role: Role;
  email: string;
  plan: Plan;
  /** The hash of the access token the request carried (absent when authentication is disabled). */
  tokenHash?: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; null on routes open to everyone and before authentication. */
    user: AuthUser | null;
  }
  interface FastifyContextConfig {
    /** `false`: the route is open without a token (health, providers, login, refresh). */
    auth?: boolean;
  }
}
