import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../kit/auth/admin-guard.ts';
import type { Queryable } from '../../kit/db.ts';

/** Who made an administrative change: a person (by their token), the service's admin token, or the platform itself. */
export type Actor = { kind: 'person'; id: string } | { kind: 'admin-token' } | { kind: 'platform' };

/** The actor of a request the admin guard let in: the person its token speaks for, or IDENTITY_ADMIN_TOKEN. */
export function actorOf(request: FastifyRequest): Actor {
  const caller = callerOf(request);
  if (caller?.kind === 'access-token' && caller.subject) return { kind: 'person', id: caller.subject };
  return { kind: 'admin-token' };
}

export interface AdminChange {
  actor: Actor;
  /** What was done, `<thing>.<verb>`: `console_rights.set`. */
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
}

/** Writes one change to admin_changes inside the caller's transaction, so the record stands or falls with the change. */
export async function recordAdminChange(tx: Queryable, change: AdminChange): Promise<void> {
  await tx.query(
    `INSERT INTO admin_changes (actor_kind, actor_id, action, target_type, target_id, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      change.actor.kind,
      change.actor.kind === 'person' ? change.actor.id : null,
      change.action,
      change.target.type,
      change.target.id,
      JSON.stringify(change.before ?? null),
      JSON.stringify(change.after ?? null),
    ],
  );
}
