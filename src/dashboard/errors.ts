import { Type } from 'typebox';
import { HttpError, type ApiError } from '../kit/errors.ts';

/** Document 1's error body. */
export const ErrorBody = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
}, { description: 'Document 1 error body' });

const UPPER: Record<string, string> = {
  invalid_request: 'VALIDATION_ERROR',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_ALLOWED',
  request_timeout: 'REQUEST_TIMEOUT',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  rate_limited: 'RATE_LIMITED',
  internal_error: 'INTERNAL_ERROR',
  unavailable: 'UNAVAILABLE',
};

/** Every error in Document 1's UPPER-CASE codes, whichever part of the stack raised it. */
export function classifyDashboardError(error: ApiError): ApiError {
  const code = UPPER[error.code] ?? (/^[A-Z_]+$/.test(error.code) ? error.code : error.statusCode >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
  return { ...error, code, details: undefined };
}

export const unauthorized = (message = 'missing or invalid access token') => new HttpError(401, 'UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (message: string) => new HttpError(403, 'FORBIDDEN', message);
export const notFound = (what: string) => new HttpError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new HttpError(409, 'CONFLICT', message);
export const validation = (message: string) => new HttpError(400, 'VALIDATION_ERROR', message);
