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
  type ConnectionView,
} from './connections.ts';
import { SCIM_PREFIX } from './errors.ts';

export interface ConnectionRouteDeps {
  db: Database;
  issuer: string;
}

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
});
const WithToken = Type.Object({
  connection: ConnectionOut,
  token: Type.String({ description: 'The bearer token (`scim_…`): in this answer only; only its SHA-256 is kept.' }),
});
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
          { name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }) },
          { additionalProperties: false },
        ),
        response: { 201: WithToken, ...Errors },
      },
    },
    async (request, reply) => {
      const { connection, token } = await createConnection(deps.db, request.body.name);
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
