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
  /** A render's credential (RENDER_SESSIONS): it may only read what a viewer reads (auth/access.ts). */
  readOnly?: boolean;
}

/**
 * The session providers of a render's credential (render/credential.ts), by what the picture is for: a subscription's
 * mail, or a person's download. Both only read; the name says in the sessions table which made it.
 */
export const RENDER_SESSIONS = { subscription: 'subscription-render', download: 'download-render' } as const;
export type RenderPurpose = keyof typeof RENDER_SESSIONS;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `role` access check (auth/access.ts); null on routes open to everyone. */
    user: AuthUser | null;
  }
}
