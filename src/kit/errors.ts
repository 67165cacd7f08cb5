import { Type } from 'typebox';

/**
 * The platform's one list of error codes (Document 1's, extended to the statuses every service answers),
 * each with its HTTP status. Every body in `{error:{code,message}}` carries one of these; contracts that
 * fix another shape (OAuth's `{error, error_description}`) map from them.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error a route throws on purpose: answered with its status and code in the service's own error shape. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly details: Record<string, unknown> | undefined;
  constructor(
    statusCode: number,
    code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
    this.headers = options.headers ?? {};
    this.details = options.details;
  }
}

/** What the error handler knows about a failure once it is classified, before the service shapes the body. */
export interface ApiError {
  statusCode: number;
  code: ErrorCode;
  message: string;
  requestId: string;
  details?: Record<string, unknown> | undefined;
}

/** Document 1's shape, the default for services whose contract does not name another. */
export function standardErrorBody(e: ApiError): unknown {
  return { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
}

/** The schema of `standardErrorBody`, registered once per app as the OpenAPI component `Error` (see `errorRef`). */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(
        Object.keys(ERROR_CODES).map((c) => Type.Literal(c)),
        { description: "One of the platform's codes (docs/architecture.md)" },
      ),
      message: Type.String({ description: 'What went wrong, for a human' }),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { $id: 'Error', title: 'Error', description: "The platform's error body" },
);

/** A reference to the shared error schema, for route response maps: `{ 404: errorRef, ... }`. */
export const errorRef = Type.Ref('Error');

/** Response entries for the given statuses, each the shared error body. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorRef> {
  return Object.fromEntries(statuses.map((s) => [s, errorRef]));
}

const BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_CODES).map(([code, status]) => [status, code as ErrorCode]),
);

/** The code of an HTTP status; statuses outside the list fall back to the nearest class. */
export function codeForStatus(status: number): ErrorCode {
  return BY_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
}
