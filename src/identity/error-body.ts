import type { FastifyRequest } from 'fastify';
import { standardErrorBody, type ApiError, type ErrorCode } from '../kit/errors.ts';
import { scimErrorBody, SCIM_PREFIX } from './scim/errors.ts';

// RFC 6749 §5.2 names these two; other codes keep their platform name in lower case.
const OAUTH_CODES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'invalid_request',
  INTERNAL_ERROR: 'server_error',
  UNAVAILABLE: 'temporarily_unavailable',
};

/**
 * The management API under /api/ answers in the platform's `{error:{code,message}}`, SCIM provisioning under /scim/v2
 * in SCIM's (RFC 7644 3.12); every other path of identity is OAuth's or next to it (sign-in pages, discovery) and
 * answers `{error, error_description}`.
 */
export function identityErrorBody(e: ApiError, request: FastifyRequest): unknown {
  if (request.url.startsWith('/api/')) return standardErrorBody(e);
  if (
    request.url === SCIM_PREFIX ||
    request.url.startsWith(`${SCIM_PREFIX}/`) ||
    request.url.startsWith(`${SCIM_PREFIX}?`)
  )
    return scimErrorBody(e);
  return { error: OAUTH_CODES[e.code] ?? e.code.toLowerCase(), error_description: e.message };
}
