import type { AccessChecks, AccessRule } from '../../kit/access.ts';
import type { AuditGuard } from './guard.ts';

/**
 * The one kind of caller the audit API knows: an API key, or an identity access token with the required scope
 * (src/audit/auth/guard.ts). Jobs and reports belong to that caller; only the probes are public.
 */
export const CALLER: AccessRule = Object.freeze({ kind: 'caller' });

/** The checks given to createApp: the guard runs in onRequest, before the body is read. */
export function auditAccessChecks(guard: AuditGuard): AccessChecks {
  return { caller: (_rule: AccessRule, request) => guard(request) };
}
