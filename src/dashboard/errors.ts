import { HttpError, type ApiError } from '../kit/errors.ts';

/** Document 1's body is `{error: {code, message}}`: the kit's codes are already Document 1's, the details are dropped. */
export function classifyDashboardError(error: ApiError): ApiError {
  return { ...error, details: undefined };
}

export const unauthorized = (message = 'missing or invalid access token') =>
  new HttpError(401, 'UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (message: string) => new HttpError(403, 'FORBIDDEN', message);
export const notFound = (what: string) => new HttpError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new HttpError(409, 'CONFLICT', message);
/** For `.catch`: a store's "already taken" error is the route's 409 with its message; anything else goes on as it is. */
export const conflictOn =
  (taken: new (message: string) => Error) =>
  (err: unknown): never => {
    throw err instanceof taken ? conflict(err.message) : err;
  };
export const validation = (message: string) => new HttpError(400, 'VALIDATION_ERROR', message);
