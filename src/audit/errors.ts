import type { ApiError } from '../kit/errors.ts';

// Document 3 names no error shape for the audit service; it answers the platform's `{error:{code,message}}`.

/** Fastify's terse media-type error gets a message naming the fix. */
export function classifyAuditError(error: ApiError, raw: unknown): ApiError {
  const validation = (raw as { validation?: Array<{ keyword?: string; instancePath?: string; params?: { additionalProperty?: string } }>; validationContext?: string } | undefined);
  const first = validation?.validation?.[0];
  // Ajv's own words do not say which property was unknown; the caller needs its name to fix the request.
  if (first?.keyword === 'additionalProperties' && first.params?.additionalProperty) {
    const where = `${validation!.validationContext ?? 'body'}${first.instancePath ?? ''}`;
    return { ...error, message: `${where} has an unknown property "${first.params.additionalProperty}"` };
  }
  if ((raw as { code?: string } | undefined)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ...error, message: 'the body must be sent with Content-Type: application/json' };
  }
  return error;
}
