import type { Queryable } from '../../kit/db.ts';
import { eventTypeOf } from './catalog.ts';

/**
 * Who did something: a person (by their token or their browser session), the service's admin token, the platform
 * itself (the first run's owner), an operator's `platform identity ...` command on the server, a SCIM connection (an
 * enterprise directory provisioning people, scim/), or nobody known (a refused sign-in).
 */
export type Actor =
  | { kind: 'person'; id: string }
  | { kind: 'admin-token' }
  | { kind: 'platform' }
  | { kind: 'command' }
  | { kind: 'scim'; id: string }
  | { kind: 'anonymous' };

export interface Change {
  actor: Actor;
  /** What was done, `<thing>.<verb>`: `console_rights.set`, `signin.succeed`. */
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  /** The address the request came from, where a person's own action (a sign-in) makes it worth keeping. */
  clientIp?: string | undefined;
}

/**
 * The one way anything is written to the change log (admin_changes), inside the caller's transaction so the record
 * stands or falls with the change. An action that is an event (events/catalog.ts) queues, in the same statement, one
 * delivery for each enabled webhook listening for it: no path records a change without its webhooks hearing of it,
 * and none sends for a change that was rolled back.
 */
export async function recordChange(tx: Queryable, change: Change): Promise<void> {
  const eventType = eventTypeOf(change.action);
  await tx.query(
    `WITH entry AS (
       INSERT INTO admin_changes (actor_kind, actor_id, action, target_type, target_id, before, after, event_type, client_ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING id)
     INSERT INTO webhook_deliveries (webhook_id, change_id, event_type)
     SELECT w.id, entry.id, $8 FROM webhooks w, entry
      WHERE $8::text IS NOT NULL AND w.enabled AND (cardinality(w.event_types) = 0 OR $8 = ANY (w.event_types))`,
    [
      change.actor.kind,
      change.actor.kind === 'person' || change.actor.kind === 'scim' ? change.actor.id : null,
      change.action,
      change.target.type,
      change.target.id,
      JSON.stringify(change.before ?? null),
      JSON.stringify(change.after ?? null),
      eventType,
      change.clientIp ?? null,
    ],
  );
}
