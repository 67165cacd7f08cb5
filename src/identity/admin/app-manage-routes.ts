import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { AppOut, SecretOut, appOut } from './application-routes.ts';
import { Errors, Nullable, Scopes, Security, Uuid } from '../api/schemas.ts';
import { actorOf } from '../console/admin-changes.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { appTokenActivity } from '../oidc/token-activity.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { rotateSecrets, setAppActive, updateApp } from './app-changes.ts';
import { findApp } from '../apps/store.ts';

export interface AppManagementDeps {
  db: Database;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  scopes: string[];
  /** PLATFORM_SECRET_KEY: token payloads are sealed with it (the activity reads each token's grant there). */
  secretKey: Buffer;
}

const Params = Type.Object({ id: Uuid });
export const ClaimMappings = Type.Array(
  Type.Object(
    {
      claim: Type.String({ minLength: 1, maxLength: 100 }),
      source: Type.String({
        minLength: 1,
        maxLength: 300,
        description:
          '`name`, `email`, `email_verified`, `given_name`, `family_name`, `locale`, `metadata.<key>[.<key>…]`, `organization.id`, `organization.role` or `organization.permissions`',
      }),
      tokens: Type.Array(Type.Union([Type.Literal('id_token'), Type.Literal('access_token')]), {
        minItems: 1,
        maxItems: 2,
      }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 20, description: 'Extra claims in the app’s tokens, each mapped from the person (no code runs).' },
);
const Ttl = (max: number) => Type.Integer({ minimum: 1, maximum: max, description: 'Seconds.' });
const AppChanges = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    logo_url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2000,
          description:
            'Shown on its sign-in and consent pages, its name as the alt text: an https URL (http only on localhost), else 400. null: none.',
        }),
      ),
    ),
    redirect_uris: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 })),
    allowed_scopes: Type.Optional(Scopes),
    access_token_ttl: Type.Optional(Ttl(31_536_000)),
    refresh_token_ttl: Type.Optional(Ttl(31_536_000)),
    authorization_code_ttl: Type.Optional(Ttl(3600)),
    refresh_token_rotation: Type.Optional(Type.Boolean()),
    first_party: Type.Optional(Type.Boolean()),
    resource_server: Type.Optional(Type.Boolean({ description: 'Confidential apps only.' })),
    dpop_bound_access_tokens: Type.Optional(Type.Boolean()),
    brand_color: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 20,
          description:
            "The colour (#rrggbb) of its sign-in and consent pages' buttons and links; white text on it must reach 4.5:1 (WCAG AA), else 400 saying the ratio. null: the service's own.",
        }),
      ),
    ),
    email_code_sign_in: Type.Optional(
      Type.Boolean({ description: "Offer sign-in by a code mailed to the person on this app's sign-in page." }),
    ),
    backchannel_logout_uri: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2000,
          description:
            'OpenID Connect back-channel logout: where a logout token is POSTed when a session the app signed in through ends; null: none.',
        }),
      ),
    ),
    backchannel_logout_session_required: Type.Optional(
      Type.Boolean({ description: 'The logout token carries the session’s `sid`. Default true.' }),
    ),
    claim_mappings: Type.Optional(ClaimMappings),
    require_second_factor: Type.Optional(
      Type.Boolean({ description: 'Signing in to this app needs a second factor (TOTP or a passkey).' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
const Rotate = Type.Object(
  {
    previous_expire_in: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_592_000,
        description:
          'Seconds the previous secrets keep working (0: revoked now; at most 30 days); absent, they are left as they are.',
      }),
    ),
  },
  { additionalProperties: false },
);
const Activity = Type.Object(
  {
    at: Timestamp,
    event: Type.Union([Type.Literal('issued'), Type.Literal('refreshed'), Type.Literal('revoked')]),
    token_id: Uuid,
    token_kind: Type.Union([
      Type.Literal('access_token'),
      Type.Literal('client_credentials'),
      Type.Literal('refresh_token'),
    ]),
    grant_type: Nullable(
      Type.String({
        description: 'authorization_code, refresh_token, client_credentials, token_exchange, jwt_bearer…',
      }),
    ),
    scopes: Type.Array(Type.String()),
    subject: Nullable(
      Type.Object({ id: Uuid, type: Type.String(), identifier: Type.String(), display_name: Type.String() }),
    ),
    client_ip: Nullable(Type.String()),
    reason: Nullable(Type.String({ description: 'Why a token was revoked; null for an issue.' })),
  },
  { description: 'A token of the app issued (by a grant or a refresh) or revoked.' },
);
const ByEvent = Type.Tuple([
  Type.String({ maxLength: 64 }),
  Uuid,
  Type.Union([Type.Literal('issued'), Type.Literal('revoked')]),
]);

/**
 * What the console does to an application beyond registering it (admin/routes.ts): edit, deactivate and reactivate,
 * rotate its secret, and read its recent token activity; and the scopes an app may be allowed. Each change is recorded
 * in admin_changes; each route declares ADMIN access.
 */
export async function registerAppManagementRoutes(scope: AdminScope, deps: AppManagementDeps): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const appOf = async (id: string) => {
    const a = await findApp(deps.db, id);
    if (!a) throw new HttpError(404, 'NOT_FOUND', `no application ${id}`);
    return a;
  };

  scope.get(
    '/scopes',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listScopes',
        tags,
        security,
        summary: 'The scopes this service knows: what an application may be allowed',
        response: { 200: Type.Object({ scopes: Type.Array(Type.String()) }), ...Errors },
      },
    },
    async () => ({ scopes: deps.scopes }),
  );

  scope.patch(
    '/applications/:id',
    {
      config: { access: ADMIN, recordsOwnChange: true },
      schema: {
        operationId: 'updateApplication',
        tags,
        security,
        summary: "Change an application's settings (not its type or client_id); recorded",
        description:
          'The fields given are checked as for a new app of its type (redirect URIs, known scopes, a resource server only when confidential). Its tokens already issued keep the lifetimes they were issued with.',
        params: Params,
        body: AppChanges,
        response: { 200: AppOut, ...Errors },
      },
    },
    async (request) => {
      const updated = await updateApp(deps.db, request.params.id, request.body, deps.scopes, actorOf(request));
      deps.clients.invalidate(updated.clientId);
      deps.accounts.invalidate(updated.principalId);
      return appOut(updated);
    },
  );

  for (const [action, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    scope.post(
      `/applications/:id/${action}`,
      {
        config: { access: ADMIN, recordsOwnChange: true },
        schema: {
          operationId: `${action}Application`,
          tags,
          security,
          summary: active
            ? 'Reactivate an application; recorded'
            : 'Deactivate an application: its tokens stop working and it can get no new ones; recorded',
          params: Params,
          response: { 200: AppOut, ...Errors },
        },
      },
      async (request) => {
        const app = await setAppActive(deps.db, request.params.id, active, actorOf(request));
        deps.clients.invalidate(app.clientId);
        deps.accounts.invalidate(app.principalId);
        return appOut(app);
      },
    );
  }

  scope.post(
    '/applications/:id/secrets/rotate',
    {
      config: { access: ADMIN, recordsOwnChange: true },
      schema: {
        operationId: 'rotateApplicationSecret',
        tags,
        security,
        summary: 'A new client secret (shown once), the previous ones retired now or after a grace period; recorded',
        params: Params,
        body: Rotate,
        response: {
          201: Type.Object({
            secret: Type.Object({
              ...SecretOut.properties,
              client_secret: Type.String({ description: 'Shown once; only its SHA-256 is kept.' }),
            }),
            previous: Type.Array(SecretOut, { description: 'The other secrets that were live, as they are now.' }),
          }),
          ...Errors,
        },
      },
    },
    async (request, reply) => {
      const app = await appOf(request.params.id);
      const rotated = await rotateSecrets(deps.db, app, request.body.previous_expire_in, actorOf(request));
      deps.clients.invalidate(app.clientId);
      const { secret, ...info } = rotated.secret;
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ secret: { ...info, client_secret: secret }, previous: rotated.previous });
    },
  );

  scope.get(
    '/applications/:id/activity',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listApplicationActivity',
        tags,
        security,
        summary: "An application's recent token activity, newest first: tokens issued and refreshed, and revocations",
        description:
          'Read from the token store: a token purged 30 days after it expired is no longer there. The subject is whom the token speaks for (the app itself for client credentials).',
        params: Params,
        querystring: Type.Object(pageQuery({ defaultLimit: 50, maxLimit: 200 }), { additionalProperties: false }),
        response: { 200: pageOf(Activity), ...Errors },
      },
    },
    async (request) => {
      const app = await appOf(request.params.id);
      const { limit, cursor } = request.query;
      const rows = await appTokenActivity(deps.db, deps.secretKey, app.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByEvent),
      });
      return toPage(
        rows,
        limit,
        (e) => e.position,
        ({ position: _, ...e }) => e,
      );
    },
  );
}
