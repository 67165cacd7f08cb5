import type { FastifyRequest } from 'fastify';
import { accessOf } from '../../kit/access.ts';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { actorOf } from '../console/admin-changes.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { marketCaller } from '../access/market.ts';
import { describeChange } from './describe.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function actorFor(request: FastifyRequest, kind: string): Actor {
  if (kind === 'market') {
    const caller = marketCaller(request);
    return caller.principalId ? { kind: 'person', id: caller.principalId } : { kind: 'admin-token' };
  }
  return actorOf(request);
}

const parsed = (payload: unknown) => () => {
  if (typeof payload !== 'string') return undefined;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * Writes every change made through the management API (`ADMIN` routes) and the marketplace (`MARKET`) to the change log
 * (admin_changes): who (the person of the token, or the admin token), what (`describe.ts`), on what, when, and what the
 * request set, secrets never. Only changes that succeeded (2xx), before the answer leaves, so a client that saw the
 * answer finds the record. A route that records its own change in its transaction (console rights) is left to it.
 *
 * The record is written after the change's own transaction: a failure to write it is logged as an error and the
 * answer still goes out (the change is made; saying it failed would be false).
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route records its change in admin_changes itself (events/record.ts); the hook leaves it alone. */
    recordsOwnChange?: boolean;
  }
}

export function recordAdminChanges(app: App, db: Database): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (READS.has(request.method) || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    const rule = accessOf(request.routeOptions.config);
    if (rule?.kind !== 'admin' && rule?.kind !== 'market') return payload;
    // A route that writes its own record, in the change's transaction and with the value before, says so.
    if (request.routeOptions.config.recordsOwnChange) return payload;
    const operationId = (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
    let action = operationId ?? request.routeOptions.url ?? 'unknown';
    try {
      const change = describeChange({
        method: request.method,
        route: request.routeOptions.url ?? '',
        params: (request.params ?? {}) as Record<string, string>,
        body: request.body,
        answer: parsed(payload),
      });
      action = change.action;
      await recordChange(db, {
        actor: actorFor(request, rule.kind),
        action: change.action,
        target: change.target,
        before: null,
        after: change.details,
      });
    } catch (err) {
      request.log.error({ err, action }, 'an administrative change was made but could not be recorded');
    }
    return payload;
  });
}
