import type { FastifyRequest } from 'fastify';
import { HttpError } from '../kit/errors.ts';

/** The first place in a JSON value that holds a NUL character, which PostgreSQL cannot store in text or jsonb. */
function nulAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  // A raw body kept as bytes (the Stripe webhook's, for its signature) is not text a query will store: not walked byte by byte.
  if (depth > 32 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`;
    if (k.includes('\u0000')) return here;
    const found = nulAt(v, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A preValidation hook of every identity route: a NUL anywhere in the body, the query or the path parameters is a 400
 * naming the field, not a database error (PostgreSQL refuses NUL in text and jsonb, so the query would fail with a 500).
 * The management API answers it as `VALIDATION_ERROR`, the OAuth paths as `invalid_request`, the pages with an error page.
 * The provider's own form bodies (/oauth/token, ...) are not parsed by Fastify: the client lookup refuses a NUL there.
 */
export async function refuseNul(request: FastifyRequest): Promise<void> {
  const at = nulAt(request.params, 'params') ?? nulAt(request.query, 'querystring') ?? nulAt(request.body, 'body');
  if (at) throw new HttpError(400, 'VALIDATION_ERROR', `${at} must not contain the NUL character`);
}
