import type { Queryable } from '../../kit/db.ts';
import { describeChange } from '../admin-log/describe.ts';
import { recordChange, type Actor } from '../events/record.ts';

/** Who made a change through `platform identity …`: an operator on the server (migration 026). */
export const COMMAND: Actor = { kind: 'command' };

/** The management API request that makes the same change as a command. */
export interface SameRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route as declared under /api/v1: `/principals/:id/password`. */
  route: string;
  params?: Record<string, string>;
  body?: unknown;
  /** What the request would answer, read for a created target's id (`{id}`). */
  answer?: unknown;
}

/**
 * Records a command's change, in its transaction, as the management API's hook (admin-log/recorder.ts) records the
 * request making the same change: named by describe.ts from that request's route, `after` what it set with its secrets
 * redacted, and the actor `command`. Named in one place, a change has the same action and target, so the same
 * change-log filters and webhook event (events/catalog.ts), whichever path made it.
 */
export async function recordAsRequest(tx: Queryable, request: SameRequest): Promise<void> {
  const change = describeChange({
    method: request.method,
    route: `/api/v1${request.route}`,
    params: request.params ?? {},
    body: request.body,
    answer: () => request.answer,
  });
  await recordChange(tx, {
    actor: COMMAND,
    action: change.action,
    target: change.target,
    before: null,
    after: change.details,
  });
}
