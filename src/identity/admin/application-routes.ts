import { Type, type Static } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { AppSearch, ByTime, ById, Errors, Nullable, Page, Security as security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { APP_TYPES, type AppRecord } from '../apps/record.ts';
import { checkLogoUrl } from '../apps/logo.ts';
import { createApp, createSecret, findApp, findSecret, listApps, listSecrets, revokeSecret } from '../apps/store.ts';

const tags = ['management'];

export interface ApplicationRouteDeps {
  db: Database;
  clients: ClientStore;
  scopes: string[];
}

export const AppOut = Type.Object({
  id: Uuid,
  client_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
  app_type: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  allowed_grants: Type.Array(Type.String()),
  allowed_response_types: Type.Array(Type.String()),
  allowed_scopes: Type.Array(Type.String()),
  access_token_ttl: Type.Integer(),
  refresh_token_ttl: Type.Integer(),
  authorization_code_ttl: Type.Integer(),
  refresh_token_rotation: Type.Boolean(),
  first_party: Type.Boolean(),
  resource_server: Type.Boolean({
    description: 'May introspect tokens issued to other apps; every other app learns only its own tokens.',
  }),
  dpop_bound_access_tokens: Type.Boolean({
    description: 'Every token request must carry a DPoP proof (RFC 9449 section 5.2).',
  }),
  brand_color: Nullable(
    Type.String({
      description: "The colour (#rrggbb) of its sign-in and consent pages' buttons and links; null: the service's own.",
    }),
  ),
  email_code_sign_in: Type.Boolean({
    description:
      'Its sign-in page also offers "Email me a sign-in code": a six-digit code mailed to the person instead of a password.',
  }),
  public: Type.Boolean(),
  active: Type.Boolean(),
  principal_id: Uuid,
  backchannel_logout_uri: Nullable(Type.String()),
  backchannel_logout_session_required: Type.Boolean(),
  claim_mappings: Type.Array(
    Type.Object({ claim: Type.String(), source: Type.String(), tokens: Type.Array(Type.String()) }),
  ),
  require_second_factor: Type.Boolean(),
});

export const SecretOut = Type.Object({
  id: Uuid,
  secret_prefix: Type.String(),
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
  last_used_at: Nullable(Type.String()),
  last_used_ip: Nullable(Type.String()),
  revoked: Type.Boolean(),
  revoked_at: Nullable(Type.String()),
  revoked_reason: Nullable(Type.String()),
});
const NewSecretOut = Type.Object({
  ...SecretOut.properties,
  client_secret: Type.String({ description: 'Shown once; only its SHA-256 is kept.' }),
});

const NewApp = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    app_type: Type.Optional(Type.Union(APP_TYPES.map((t) => Type.Literal(t)))),
    client_id: Type.Optional(Type.String({ minLength: 3, maxLength: 128 })),
    redirect_uris: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 })),
    allowed_scopes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    logo_url: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'Shown on its sign-in and consent pages: an https URL (http only on localhost); other schemes are refused.',
      }),
    ),
    access_token_ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    refresh_token_ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    authorization_code_ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    refresh_token_rotation: Type.Optional(Type.Boolean()),
    first_party: Type.Optional(Type.Boolean()),
    resource_server: Type.Optional(
      Type.Boolean({
        description:
          'Register the app as a resource server: it may introspect tokens issued to other apps. Confidential apps only.',
      }),
    ),
    dpop_bound_access_tokens: Type.Optional(
      Type.Boolean({
        description:
          'Require a DPoP proof (RFC 9449) with every token request: its tokens are always bound to a key. Default false.',
      }),
    ),
    email_code_sign_in: Type.Optional(
      Type.Boolean({
        description:
          'Its sign-in page also offers "Email me a sign-in code" (a six-digit code mailed to the person instead of a password). Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function appOut(a: AppRecord): Static<typeof AppOut> {
  return {
    id: a.id,
    client_id: a.clientId,
    name: a.name,
    description: a.description,
    logo_url: a.logoUrl,
    app_type: a.appType,
    redirect_uris: a.redirectUris,
    allowed_grants: a.allowedGrants,
    allowed_response_types: a.allowedResponseTypes,
    allowed_scopes: a.allowedScopes,
    access_token_ttl: a.accessTokenTtl,
    refresh_token_ttl: a.refreshTokenTtl,
    authorization_code_ttl: a.authorizationCodeTtl,
    refresh_token_rotation: a.refreshTokenRotation,
    first_party: a.firstParty,
    resource_server: a.resourceServer,
    dpop_bound_access_tokens: a.dpopBoundAccessTokens,
    email_code_sign_in: a.emailCodeSignIn,
    brand_color: a.brandColor,
    public: a.public,
    active: a.active,
    principal_id: a.principalId,
    backchannel_logout_uri: a.backchannelLogoutUri,
    backchannel_logout_session_required: a.backchannelLogoutSessionRequired,
    claim_mappings: a.claimMappings,
    require_second_factor: a.requireSecondFactor,
  };
}

async function appOf(db: Database, id: string): Promise<AppRecord> {
  const a = await findApp(db, id);
  if (!a) throw new HttpError(404, 'NOT_FOUND', `no application ${id}`);
  return a;
}

/**
 * Applications under /api/v1/applications and their client secrets (ADMIN access). A change drops the app from the
 * client store's cache (on every instance, through the bus), so the provider sees it at once.
 */
export function registerApplicationRoutes(scope: TypedScope, deps: ApplicationRouteDeps): void {
  createApplicationRoute(scope, deps);
  listApplicationsRoute(scope, deps);
  getApplicationRoute(scope, deps);
  createApplicationSecretRoute(scope, deps);
  listApplicationSecretsRoute(scope, deps);
  revokeApplicationSecretRoute(scope, deps);
  revokeApplicationSecretWithReasonRoute(scope, deps);
}

function createApplicationRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.post(
    '/applications',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createApplication',
        tags,
        security,
        summary: 'Register an application; a confidential one gets its first secret, shown once',
        body: NewApp,
        response: {
          201: Type.Object({ application: AppOut, client_secret: Type.Optional(Type.String()) }),
          ...Errors,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const created = await createApp(
        deps.db,
        {
          name: b.name,
          appType: b.app_type,
          clientId: b.client_id,
          redirectUris: b.redirect_uris,
          allowedScopes: b.allowed_scopes,
          description: b.description,
          logoUrl: checkLogoUrl(b.logo_url) ?? undefined,
          accessTokenTtl: b.access_token_ttl,
          refreshTokenTtl: b.refresh_token_ttl,
          authorizationCodeTtl: b.authorization_code_ttl,
          refreshTokenRotation: b.refresh_token_rotation,
          firstParty: b.first_party,
          resourceServer: b.resource_server,
          dpopBoundAccessTokens: b.dpop_bound_access_tokens,
          emailCodeSignIn: b.email_code_sign_in,
        },
        deps.scopes,
      );
      deps.clients.invalidate(created.clientId);
      const secret = created.public ? undefined : (await createSecret(deps.db, created.id)).secret;
      return reply.code(201).send({ application: appOut(created), ...(secret ? { client_secret: secret } : {}) });
    },
  );
}

function listApplicationsRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.get(
    '/applications',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listApplications',
        tags,
        security,
        summary: 'List applications, or those whose name or client_id contains `q`',
        querystring: AppSearch,
        response: { 200: pageOf(AppOut), ...Errors },
      },
    },
    async (request) => {
      const { limit, cursor, q } = request.query;
      const after = decodeCursor(cursor, ById)?.[0];
      const rows = await listApps(deps.db, { limit: limit + 1, after, search: q });
      return toPage(rows, limit, (a) => [a.id], appOut);
    },
  );
}

function getApplicationRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.get(
    '/applications/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getApplication',
        tags,
        security,
        summary: 'One application',
        params: Type.Object({ id: Uuid }),
        response: { 200: AppOut, ...Errors },
      },
    },
    async (request) => appOut(await appOf(deps.db, request.params.id)),
  );
}

function createApplicationSecretRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.post(
    '/applications/:id/secrets',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createApplicationSecret',
        tags,
        security,
        summary: 'Add a client secret (for rotation); shown once',
        params: Type.Object({ id: Uuid }),
        response: { 201: NewSecretOut, ...Errors },
      },
    },
    async (request, reply) => {
      const a = await appOf(deps.db, request.params.id);
      if (a.public) throw new HttpError(400, 'VALIDATION_ERROR', `a ${a.appType} app is public and has no secrets`);
      const s = await createSecret(deps.db, a.id);
      deps.clients.invalidate(a.clientId);
      const { secret, ...info } = s;
      return reply.code(201).send({ ...info, client_secret: secret });
    },
  );
}

function listApplicationSecretsRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.get(
    '/applications/:id/secrets',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listApplicationSecrets',
        tags,
        security,
        summary: "An application's secrets (prefixes only), oldest first",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(SecretOut), ...Errors },
      },
    },
    async (request) => {
      const a = await appOf(deps.db, request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listSecrets(deps.db, a.id, { limit: limit + 1, after: decodeCursor(cursor, ByTime) });
      return toPage(
        rows,
        limit,
        (s) => s.position,
        ({ position: _, ...s }) => s,
      );
    },
  );
}

function revokeApplicationSecretRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.delete(
    '/applications/:id/secrets/:secretId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeApplicationSecret',
        tags,
        security,
        summary: 'Revoke a client secret',
        params: Type.Object({ id: Uuid, secretId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      const a = await appOf(deps.db, request.params.id);
      if (!(await revokeSecret(deps.db, a.id, request.params.secretId)))
        throw new HttpError(404, 'NOT_FOUND', 'no live secret with this id for this application');
      deps.clients.invalidate(a.clientId);
      return reply.code(204).send(null);
    },
  );
}

function revokeApplicationSecretWithReasonRoute(scope: TypedScope, deps: ApplicationRouteDeps): void {
  scope.post(
    '/applications/:id/secrets/:secretId/revoke',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeApplicationSecretWithReason',
        tags,
        security,
        summary: 'Revoke a client secret with a reason (409 when revoked already)',
        params: Type.Object({ id: Uuid, secretId: Uuid }),
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
        response: { 200: SecretOut, ...Errors },
      },
    },
    async (request) => {
      const a = await appOf(deps.db, request.params.id);
      const existing = await findSecret(deps.db, a.id, request.params.secretId);
      if (!existing) throw new HttpError(404, 'NOT_FOUND', 'no secret with this id for this application');
      if (!(await revokeSecret(deps.db, a.id, existing.id, request.body.reason)))
        throw new HttpError(409, 'CONFLICT', 'the secret is revoked already');
      deps.clients.invalidate(a.clientId);
      return (await findSecret(deps.db, a.id, existing.id))!;
    },
  );
}
