import type { FastifyReply, FastifyRequest } from 'fastify';
import { standardErrorBody } from '../../kit/errors.ts';

/**
 * Answers 503 with `Retry-After` rather than throwing it: the error handler logs every 5xx, while a database outage
 * is logged once, by the OutageLog.
 */
export function answerUnavailable(
  request: FastifyRequest,
  reply: FastifyReply,
  retryAfterSeconds: number,
  message: string,
): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(retryAfterSeconds))
    .type('application/json; charset=utf-8')
    .send(standardErrorBody({ statusCode: 503, code: 'UNAVAILABLE', message, requestId: request.id }));
}
