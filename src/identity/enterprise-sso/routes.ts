import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingOrganization } from '../organizations/store.ts';
import { checkDomains } from './domains.ts';
import { deleteConnector, findConnector, putConnector } from './store.ts';

export interface EnterpriseSsoRouteDeps {
  db: Database;
  secretKey: Buffer;
  /** The outbound guard (IDENTITY_WEBHOOK_ALLOW_HOSTS): an issuer at an internal address is refused when it is set. */
  policy: AddressPolicy;
}

const tags = ['management'];
const ConnectorOut = Type.Object({
  organization_id: Uuid,
  issuer: Type.String(),
  client_id: Type.String(),
  has_client_secret: Type.Boolean({ description: 'The secret itself is never shown.' }),
  domains: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const ConnectorIn = Type.Object(
  {
    issuer: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        "The IdP's OpenID Connect issuer (https; its discovery document is fetched from it); internal addresses are refused.",
    }),
    client_id: Type.String({ minLength: 1, maxLength: 500 }),
    client_secret: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()], {
        description:
          'Write-only, sealed at rest. Absent: the current one is kept; null: none (a public client, PKCE only).',
      }),
    ),
    domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
      minItems: 1,
      maxItems: 50,
      description:
        'Email domains whose people sign in through this IdP, verified by the admin; each bound to one organization at most (409), public mail domains refused.',
    }),
  },
  { additionalProperties: false },
);
const ById = Type.Object({ id: Uuid });

/** An organization's enterprise SSO connector, under the management API (admin guard). */
export function registerEnterpriseSsoRoutes(scope: TypedScope, deps: EnterpriseSsoRouteDeps): void {
  scope.get(
    '/organizations/:id/enterprise-sso',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getEnterpriseSso',
        tags,
        security: Security,
        summary: "The organization's enterprise SSO connector (404 when none)",
        params: ById,
        response: { 200: ConnectorOut, ...Errors },
      },
    },
    async (request) => {
      await existingOrganization(deps.db, request.params.id);
      const c = await findConnector(deps.db, request.params.id);
      if (!c) throw new HttpError(404, 'NOT_FOUND', 'this organization has no enterprise SSO connector');
      return c;
    },
  );

  scope.put(
    '/organizations/:id/enterprise-sso',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'putEnterpriseSso',
        tags,
        security: Security,
        summary: "Set the organization's enterprise SSO connector and its email domains (replaced as a whole)",
        params: ById,
        body: ConnectorIn,
        response: { 200: ConnectorOut, ...Errors },
      },
    },
    async (request) => {
      await existingOrganization(deps.db, request.params.id);
      const b = request.body;
      return putConnector(deps.db, deps.secretKey, request.params.id, {
        issuer: await checkIssuer(deps.policy, b.issuer),
        clientId: b.client_id,
        clientSecret: b.client_secret,
        domains: checkDomains(b.domains),
      });
    },
  );

  scope.delete(
    '/organizations/:id/enterprise-sso',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'deleteEnterpriseSso',
        tags,
        security: Security,
        summary: "Remove the organization's connector: its domains sign in with passwords again",
        params: ById,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      await existingOrganization(deps.db, request.params.id);
      if (!(await deleteConnector(deps.db, request.params.id)))
        throw new HttpError(404, 'NOT_FOUND', 'this organization has no enterprise SSO connector');
      return reply.code(204).send(null);
    },
  );
}

/** The issuer: an absolute http(s) URL without query or fragment, at an address the outbound guard lets the service reach. */
async function checkIssuer(policy: AddressPolicy, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', 'issuer: must be an absolute URL');
  }
  if (url.search || url.hash || url.username || url.password)
    throw new HttpError(400, 'VALIDATION_ERROR', 'issuer: must have no query, fragment or credentials');
  try {
    policy.checkUrl(url);
    await policy.resolve(url.hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw new HttpError(400, 'VALIDATION_ERROR', `issuer: ${err.message}`);
    throw err;
  }
  // As given: the discovery document's `issuer` must equal it exactly.
  return raw;
}
