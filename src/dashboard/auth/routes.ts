import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn, OPEN } from './access.ts';
import type { Database } from '../../kit/db.ts';
import { errorResponses } from '../../kit/errors.ts';
import { unauthorized } from '../errors.ts';
import { MeSchema, TokenPairSchema, bearer } from '../schemas.ts';
import { getUser, toUser } from '../users/store.ts';
import { currentUser } from './authenticate.ts';
import { revokeSessionOfAccessToken, rotateRefreshToken, type TokenSettings } from './sessions.ts';

export function registerSessionRoutes(app: App, deps: { db: Database; tokens: TokenSettings }): void {
  const { db, tokens } = deps;

  app.get(
    '/api/v1/auth/me',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getMe',
        tags: ['auth'],
        summary: 'The signed-in user',
        security: bearer,
        response: { 200: MeSchema, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const u = currentUser(request);
      const row = await getUser(db, u.tenantId, u.id);
      if (!row) throw unauthorized();
      // Decided here from the session, never from the page's address: a read-only credential is shown no control.
      return u.readOnly ? { ...toUser(row), readOnly: true as const } : toUser(row);
    },
  );

  app.post(
    '/api/v1/auth/refresh',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'refreshTokens',
        tags: ['auth'],
        summary:
          'Exchange a refresh token for a new token pair (the refresh token is rotated; reusing an old one revokes its session)',
        // Any string is a credential to check: one that is not a valid refresh token (empty, an access token pasted
        // here, any length) is 401 like an unknown one; only a body of the wrong shape is 400.
        body: Type.Object(
          {
            refreshToken: Type.String({
              description: 'the refresh token of the last pair; any other string is 401',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: TokenPairSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const outcome = await rotateRefreshToken(db, tokens, request.body.refreshToken);
      if (!outcome.ok) {
        request.log.info({ reason: outcome.reason }, 'refresh refused');
        throw unauthorized(
          outcome.reason === 'reused'
            ? 'refresh token already used; its session has been revoked'
            : 'invalid or expired refresh token',
        );
      }
      return outcome.pair;
    },
  );

  app.post(
    '/api/v1/auth/logout',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'logout',
        tags: ['auth'],
        summary: 'End the session: its refresh tokens and access tokens stop working',
        security: bearer,
        response: { 204: Type.Null(), ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => {
      const u = currentUser(request);
      if (u.tokenHash) await revokeSessionOfAccessToken(db, u.tokenHash);
      return reply.code(204).send(null);
    },
  );
}
