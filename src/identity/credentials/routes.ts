import { ADMIN } from '../access/rules.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ByTime, Errors, Nullable, Page, Scopes, Security, Uuid } from '../api/schemas.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import type { TypedScope } from '../api/scope.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { findPrincipal, type PrincipalView } from '../principals/view.ts';
import { setPassword } from '../principals/store.ts';
import { createApiKey, createKeypair, findCredential, listCredentials, revokeCredential } from './store.ts';

const Time = Type.String({ format: 'date-time' });
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
    expires_at: Nullable(Time),
    revoked: Type.Boolean(),
    revoked_at: Nullable(Time),
    revoked_reason: Nullable(Type.String()),
    last_used_at: Nullable(Time),
    last_used_ip: Nullable(Type.String()),
    created_at: Time,
    updated_at: Time,
    webauthn_aaguid: Type.Optional(
      Nullable(Type.String({ description: "A passkey's authenticator model (AAGUID); null for other kinds." })),
    ),
    webauthn_sign_count: Type.Optional(
      Nullable(Type.Integer({ description: "A passkey's last signature counter; null for other kinds." })),
    ),
  },
  { description: 'A credential; its secret_hash is never shown.' },
);

const Common = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  scopes: Type.Optional(Scopes),
  expires_at: Type.Optional(Time),
};
const NewApiKey = Type.Object(
  { type: Type.Literal('api_key'), ...Common },
  { additionalProperties: false, title: 'NewApiKey' },
);
const NewKeypair = Type.Object(
  {
    type: Type.Literal('keypair'),
    public_key: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: 'PEM SubjectPublicKeyInfo (-----BEGIN PUBLIC KEY-----).',
    }),
    key_algorithm: Type.Optional(
      Type.Union([Type.Literal('RS256'), Type.Literal('ES256')], { description: 'RS256 when omitted.' }),
    ),
    key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$' })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewKeypair' },
);

const Params = Type.Object({ id: Uuid });
const CredentialParams = Type.Object({ id: Uuid, credentialId: Uuid });

/** A principal's credentials under /api/v1/principals/:id (each route declares ADMIN access). */
export async function registerCredentialRoutes(
  scope: TypedScope,
  deps: { db: Database; accounts: PrincipalDirectory; clients: ClientStore; scopes: string[] },
): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const principalOf = async (id: string) => {
    const p = await findPrincipal(deps.db, id);
    if (!p) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
    return p;
  };
  // An application's keys are its client's (private_key_jwt): the cached client is dropped so they count at once.
  const keysChanged = (p: PrincipalView) => {
    if (p.application) deps.clients.invalidate(p.application.clientId);
  };

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
      const p = await principalOf(request.params.id);
      const b = request.body;
      const unknown = (b.scopes ?? []).filter((s) => !deps.scopes.includes(s));
      if (unknown.length) throw new HttpError(400, 'VALIDATION_ERROR', `unknown scope ${unknown.join(', ')}`);
      const expiresAt = b.expires_at ? new Date(b.expires_at) : undefined;
      if (b.type === 'api_key') {
        if (p.type !== 'service')
          throw new HttpError(400, 'VALIDATION_ERROR', `API keys are for service principals; this one is a ${p.type}`);
        const { credential, apiKey } = await createApiKey(deps.db, p.id, { name: b.name, scopes: b.scopes, expiresAt });
        return reply.code(201).send({ credential, api_key: apiKey });
      }
      if (p.type !== 'service' && p.type !== 'agent' && p.type !== 'application')
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          `key pairs are for service, agent and application principals; this one is a ${p.type}`,
        );
      if (p.application && (await deps.clients.app(p.application.clientId))?.public !== false)
        throw new HttpError(
          400,
          'VALIDATION_ERROR',
          'a public app cannot keep a private key: only confidential applications authenticate with keys',
        );
      const credential = await createKeypair(deps.db, p.id, {
        name: b.name,
        scopes: b.scopes,
        expiresAt,
        publicKey: b.public_key,
        algorithm: b.key_algorithm ?? 'RS256',
        keyId: b.key_id,
      });
      keysChanged(p);
      return reply.code(201).send({ credential });
    },
  );

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
      await principalOf(request.params.id);
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
      const p = await principalOf(request.params.id);
      const c = await revokeCredential(deps.db, p.id, request.params.credentialId, request.body.reason);
      if (!c) throw new HttpError(404, 'NOT_FOUND', 'no credential with this id for this principal');
      if (c.type === 'keypair') keysChanged(p);
      return c;
    },
  );

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
      const p = await principalOf(request.params.id);
      if (p.type !== 'human') throw new HttpError(400, 'VALIDATION_ERROR', 'only humans have passwords');
      await setPassword(deps.db, p.id, request.body.password);
      return reply.code(204).send(null);
    },
  );
}
