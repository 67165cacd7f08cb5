import type { ApiError } from '../kit/errors.ts';

/**
 * The error table of the ingestion contract names statuses only (400, 401, 405, 500); the body is the platform's
 * `{error:{code,message}}`. The contract answers an oversize batch with 400, not HTTP's 413; Fastify's terse 415 gets a message naming the fix.
 */
export function classifyIngestError(error: ApiError, raw: unknown): ApiError {
  if (error.statusCode === 413) return { ...error, statusCode: 400, code: 'VALIDATION_ERROR', details: { reason: 'batch_too_large' } };
  if ((raw as { code?: string } | undefined)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ...error, message: 'the body must be sent with Content-Type: application/json' };
  }
  return error;
}
