import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';

/** The SCIM connection a request's bearer token opened: the directory provisioning people through it. */
export interface ScimConnection {
  id: string;
  name: string;
  /** Whether it may adopt people the platform had before it (an admin's choice per connection, scim/users.ts). */
  adoptExisting: boolean;
}

/** What the check reads of the connections (scim/connections.ts, above this folder): the live one a token opens. */
export type ScimTokens = (token: string) => Promise<ScimConnection | undefined>;

const connections = new WeakMap<FastifyRequest, ScimConnection>();

/** The connection that passed the `scim` check on this request; only ever asked on routes that declare it. */
export function scimConnection(request: FastifyRequest): ScimConnection {
  const c = connections.get(request);
  if (!c) throw new Error(`route ${request.routeOptions.url} does not declare SCIM access`);
  return c;
}

/**
 * The `scim` check: `Authorization: Bearer scim_…`, the live token of a SCIM connection (made by an admin through the
 * management API or `platform identity scim create`); 401 otherwise, before the body is read, in SCIM's error shape
 * (the app's error body for /scim/v2). Nothing else opens these routes: not an admin's token, not IDENTITY_ADMIN_TOKEN.
 */
export function scimCheck(tokens: ScimTokens) {
  return async (_rule: unknown, request: FastifyRequest): Promise<void> => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    const found = match ? await tokens(match[1]!) : undefined;
    if (!found)
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        match
          ? 'the SCIM token is unknown or revoked'
          : "send the SCIM connection's token: Authorization: Bearer scim_… (made by an admin, shown once)",
        { headers: { 'www-authenticate': `Bearer realm="scim"${match ? ', error="invalid_token"' : ''}` } },
      );
    connections.set(request, found);
  };
}
