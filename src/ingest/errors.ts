import { HttpError, type ApiError } from '../kit/errors.ts';

/**
 * The error table of the ingestion contract names statuses only (400, 401, 405, 500); the body is the platform's
 * `{error:{code,message}}`. The contract answers an oversize batch with 400, not HTTP's 413; Fastify's terse 415 gets a message naming the fix.
 */
export function classifyIngestError(error: ApiError, raw: unknown): ApiError {
  if (error.statusCode === 413)
    return { ...error, statusCode: 400, code: 'VALIDATION_ERROR', details: { reason: 'batch_too_large' } };
  if ((raw as { code?: string } | undefined)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ...error, message: 'the body must be sent with Content-Type: application/json' };
  }
  return error;
}

/**
 * A 400 of `/v1/events`: the platform's `VALIDATION_ERROR`, with `details.reason` telling clients and the
 * request metrics which rule the body broke (`invalid_json`, `batch_too_large`, ...).
 */
export function invalidBody(
  reason: string,
  message: string,
  options: { headers?: Record<string, string> } = {},
): HttpError {
  return new HttpError(400, 'VALIDATION_ERROR', message, { ...options, details: { reason } });
}

/** The `details.reason` of an error made by `invalidBody`. */
export function reasonOf(err: unknown): string | undefined {
  const reason = err instanceof HttpError ? err.details?.reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}
