import { ADMIN } from '../access/rules.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ByTime, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import type { TypedScope } from '../api/scope.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { existingPrincipal } from '../principals/out.ts';
import { setPassword } from '../principals/store.ts';
import { findCredential, listCredentials, revokeCredential } from './store.ts';
import { addCredential, keysChanged, NewApiKey, NewKeypair } from './new-credential.ts';

const CredentialOut = Type.Object(
  {
    id: Uuid,
    principal_id: Uuid,
    type: Type.Union([
      Type.Literal('password'),
      Type.Literal('api_key'),
      Type.Literal('keypair'),
      Type.Literal('webauthn'),
      Type.Literal('totp'),
      Type.Literal('client_secret'),
    ]),
    identifier: Nullable(
      Type.String({
        description: 'For an API key, its first characters (for recognising it); for a key pair, its key_id.',
      }),
    ),
    name: Nullable(Type.String()),
    public_key: Nullable(Type.String()),
    key_algorithm: Nullable(Type.String()),
    key_id: Nullable(Type.String()),
    scopes: Type.Array(Type.String()),
    active: Type.Boolean(),
    expires_at: Nullable(Timestamp),
    revoked: Type.Boolean(),
    revoked_at: Nullable(Timestamp),
    revoked_reason: Nullable(Type.String()),
    last_used_at: Nullable(Timestamp),
    last_used_ip: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    webauthn_aaguid: Type.Optional(
      Nullable(Type.String({ description: "A passkey's authenticator model (AAGUID); null for other kinds." })),
    ),
    webauthn_sign_count: Type.Optional(
      Nullable(Type.Integer({ description: "A passkey's last signature counter; null for other kinds." })),
    ),
  },
  { description: 'A credential; its secret_hash is never shown.' },
);

const Params = Type.Object({ id: Uuid });
const CredentialParams = Type.Object({ id: Uuid, credentialId: Uuid });

/** A principal's credentials under /api/v1/principals/:id (each route declares ADMIN access). */
const tags = ['management'];
const security = Security;
type Deps = { db: Database; accounts: PrincipalDirectory; clients: ClientStore; scopes: string[] };

/** A principal's credentials under /api/v1/principals/:id (each route declares ADMIN access). */
export async function registerCredentialRoutes(scope: TypedScope, deps: Deps): Promise<void> {
  createCredentialRoute(scope, deps);
  listCredentialsRoute(scope, deps);
  getCredentialRoute(scope, deps);
  revokeCredentialRoute(scope, deps);
  setPasswordRoute(scope, deps);
}

function createCredentialRoute(scope: TypedScope, deps: Deps): void {
  scope.post(
    '/principals/:id/credentials',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createCredential',
        tags,
        security,
        summary:
          "Add an API key (service principals; shown once) or a public key (services and agents; a confidential application's, for private_key_jwt) to a principal",
        params: Params,
        body: Type.Union([NewApiKey, NewKeypair]),
        response: {
          201: Type.Object({
            credential: CredentialOut,
            api_key: Type.Optional(Type.String({ description: 'Shown once; only its SHA-256 is kept.' })),
          }),
          ...Errors,
        },
      },
    },
    async (request, reply) => {
      const p = await existingPrincipal(deps.db, request.params.id);
      const created = await addCredential(deps, p, request.body);
      return reply.code(201).send(created);
    },
  );
}

function listCredentialsRoute(scope: TypedScope, deps: Deps): void {
  scope.get(
    '/principals/:id/credentials',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listCredentials',
        tags,
        security,
        summary: "A principal's credentials, oldest first (never their secrets)",
        params: Params,
        querystring: Page,
        response: { 200: pageOf(CredentialOut), ...Errors },
      },
    },
    async (request) => {
      await existingPrincipal(deps.db, request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listCredentials(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (c) => c.position,
        ({ position: _, ...c }) => c,
      );
    },
  );
}

function getCredentialRoute(scope: TypedScope, deps: Deps): void {
  scope.get(
    '/principals/:id/credentials/:credentialId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getCredential',
        tags,
        security,
        summary: 'One credential',
        params: CredentialParams,
        response: { 200: CredentialOut, ...Errors },
      },
    },
    async (request) => {
      const c = await findCredential(deps.db, request.params.id, request.params.credentialId);
      if (!c) throw new HttpError(404, 'NOT_FOUND', 'no credential with this id for this principal');
      return c;
    },
  );
}

function revokeCredentialRoute(scope: TypedScope, deps: Deps): void {
  scope.post(
    '/principals/:id/credentials/:credentialId/revoke',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeCredential',
        tags,
        security,
        summary: 'Revoke a credential with a reason (409 when revoked already)',
        params: CredentialParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 200: CredentialOut, ...Errors },
      },
    },
    async (request) => {
      const p = await existingPrincipal(deps.db, request.params.id);
      const c = await revokeCredential(deps.db, p.id, request.params.credentialId, request.body.reason);
      if (!c) throw new HttpError(404, 'NOT_FOUND', 'no credential with this id for this principal');
      if (c.type === 'keypair') keysChanged(deps.clients, p);
      return c;
    },
  );
}

function setPasswordRoute(scope: TypedScope, deps: Deps): void {
  scope.put(
    '/principals/:id/password',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'setPassword',
        tags,
        security,
        summary: "Set a human's password (the old one is revoked with reason `replaced`)",
        params: Params,
        body: Type.Object(
          { password: Type.String({ minLength: 12, maxLength: 1024 }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      const p = await existingPrincipal(deps.db, request.params.id);
      if (p.type !== 'human') throw new HttpError(400, 'VALIDATION_ERROR', 'only humans have passwords');
      await setPassword(deps.db, p.id, request.body.password);
      return reply.code(204).send(null);
    },
  );
}
