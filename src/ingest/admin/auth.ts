import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';

export type AdminGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The preHandler of every route under /api/v1: `Authorization: Bearer <INGEST_ADMIN_TOKEN>`, compared in
 * constant time. Without a configured token the admin API is closed rather than open.
 */
export function requireAdmin(config: { adminToken: string | undefined }): AdminGuard {
  const expected = config.adminToken;
  return async (request) => {
    if (!expected) throw new HttpError(401, 'UNAUTHORIZED', 'the admin API is disabled: set INGEST_ADMIN_TOKEN');
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new HttpError(401, 'UNAUTHORIZED', 'missing admin token: send Authorization: Bearer <token>', { headers: { 'www-authenticate': 'Bearer' } });
    if (!safeEqual(match[1]!, expected)) throw new HttpError(401, 'UNAUTHORIZED', 'invalid admin token', { headers: { 'www-authenticate': 'Bearer' } });
  };
}
