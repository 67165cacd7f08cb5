import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../kit/auth/admin-guard.ts';
import type { Actor } from '../events/record.ts';

/** The actor of a request the admin guard let in: the person its token speaks for, or IDENTITY_ADMIN_TOKEN. */
export function actorOf(request: FastifyRequest): Actor {
  const caller = callerOf(request);
  if (caller?.kind === 'access-token' && caller.subject) return { kind: 'person', id: caller.subject };
  return { kind: 'admin-token' };
}
