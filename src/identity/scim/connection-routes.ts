import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { ADMIN } from '../access/rules.ts';
import { ById, Errors, Nullable, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import {
  createConnection,
  findConnection,
  listConnections,
  revokeConnection,
  rotateToken,
  updateConnection,
  type ConnectionView,
} from './connections.ts';
import { SCIM_PREFIX } from './errors.ts';

export interface ConnectionRouteDeps {
  db: Database;
  issuer: string;
}

const ADOPT =
  'Whether provisioning an email a person already signs in with links that person to this connection (then its to ' +
  'change and deactivate) instead of answering 409; never a platform admin, a deactivated person or another ' +
  "connection's. Off by default.";
const ConnectionOut = Type.Object({
  id: Uuid,
  name: Type.String(),
  token_prefix: Type.String({ description: 'The token’s first characters, to tell tokens apart.' }),
  base_url: Type.String({ description: "The SCIM base URL to give the directory (Okta's, Entra ID's)." }),
  created_at: Timestamp,
  token_created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
  people: Type.Integer({ description: 'The people it provisioned and has not deleted.' }),
  adopt_existing: Type.Boolean({ description: ADOPT }),
});
const WithToken = Type.Object({
  connection: ConnectionOut,
  token: Type.String({ description: 'The bearer token (`scim_…`): in this answer only; only its SHA-256 is kept.' }),
});
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Params = Type.Object({ id: Uuid });
const tags = ['scim'];
const security = Security;

/**
 * SCIM connections under /api/v1/scim-connections (ADMIN): one per enterprise directory, each with one bearer token at a
 * time, shown once when made or rotated. Recorded in the change log by the management API's hook, never the token.
 */
export function registerScimConnectionRoutes(scope: TypedScope, deps: ConnectionRouteDeps): void {
  const base = `${deps.issuer.replace(/\/$/, '')}${SCIM_PREFIX}`;
  const out = (c: ConnectionView) => ({ ...c, base_url: base });

  scope.post(
    '/scim-connections',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createScimConnection',
        tags,
        security,
        summary: 'A SCIM connection for a directory, with its token (shown once)',
        body: Type.Object(
          { name: Name, adopt_existing: Type.Optional(Type.Boolean({ description: ADOPT })) },
          { additionalProperties: false },
        ),
        response: { 201: WithToken, ...Errors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { connection, token } = await createConnection(deps.db, b.name, undefined, b.adopt_existing ?? false);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ connection: out(connection), token });
    },
  );

  scope.get(
    '/scim-connections',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listScimConnections',
        tags,
        security,
        summary: 'The SCIM connections, revoked ones included',
        querystring: Type.Object(pageQuery(), { additionalProperties: false }),
        response: { 200: pageOf(ConnectionOut), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await listConnections(deps.db, q.limit + 1, decodeCursor(q.cursor, ById)?.[0]);
      return toPage(rows, q.limit, (c) => [c.id], out);
    },
  );

  scope.get(
    '/scim-connections/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getScimConnection',
        tags,
        security,
        summary: 'One SCIM connection',
        params: Params,
        response: { 200: ConnectionOut, ...Errors },
      },
    },
    async (request) => out(await findConnection(deps.db, request.params.id)),
  );

  scope.patch(
    '/scim-connections/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'updateScimConnection',
        tags,
        security,
        summary: 'Rename a SCIM connection or turn its adoption of existing people on or off',
        params: Params,
        body: Type.Object(
          { name: Type.Optional(Name), adopt_existing: Type.Optional(Type.Boolean({ description: ADOPT })) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: ConnectionOut, ...Errors },
      },
    },
    async (request) => {
      const b = request.body;
      return out(await updateConnection(deps.db, request.params.id, { name: b.name, adoptExisting: b.adopt_existing }));
    },
  );

  scope.post(
    '/scim-connections/:id/rotate',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'rotateScimConnectionToken',
        tags,
        security,
        summary: 'A new token (shown once); the previous one stops at once, a revoked connection opens again',
        params: Params,
        response: { 201: WithToken, ...Errors },
      },
    },
    async (request, reply) => {
      const { connection, token } = await rotateToken(deps.db, request.params.id);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ connection: out(connection), token });
    },
  );

  scope.post(
    '/scim-connections/:id/revoke',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeScimConnection',
        tags,
        security,
        summary: "Revoke the connection's token: the directory's next request is refused; its people stay as they are",
        params: Params,
        response: { 200: ConnectionOut, ...Errors },
      },
    },
    async (request) => out(await revokeConnection(deps.db, request.params.id)),
  );
}
