/** An error a route throws on purpose: answered with its status and code in the service's own error shape. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly details: Record<string, unknown> | undefined;
  constructor(statusCode: number, code: string, message: string, options: { headers?: Record<string, string>; details?: Record<string, unknown> } = {}) {
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
  code: string;
  message: string;
  requestId: string;
  details?: Record<string, unknown> | undefined;
}

/** Document 1's shape, the default for services whose contract does not name another. */
export function standardErrorBody(e: ApiError): unknown {
  return { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
}

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

export function codeForStatus(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
}
