import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { OPEN } from '../auth/access.ts';
import { safeEqual } from '../../kit/crypto.ts';
import { HttpError, type ErrorCode } from '../../kit/errors.ts';
import { startSession } from '../auth/sessions.ts';
import { recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardPublicUrl } from '../config.ts';
import { notFound, validation } from '../errors.ts';
import { Slug, TokenPairSchema, errors } from '../schemas.ts';
import { findSignInUser } from './mapping.ts';
import { updateProfileAtSignIn } from './profile.ts';
import { LoginFailed, type LoginProvider } from './provider.ts';
import { redirectAllowed } from './redirect.ts';
import { beginLogin, clearedStateCookie, consumeLogin, readStateCookie, stateCookie } from './state.ts';

const ProviderParams = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z][a-z0-9-]*$' }),
});
const tags = ['auth'];

/**
 * Sign-in through an external provider (Document 1's login flow). The start sets the single-use state cookie and
 * redirects to the provider; the callback checks the cookie against `state`, consumes the login, exchanges the code
 * (PKCE, nonce), finds the user, updates their name and verified email from the provider, and answers the token
 * pair: as JSON, or — when the login named an allowed `redirect` — by redirecting there with the pair in the URL
 * fragment (never sent to a server, never in a log).
 */
export function registerLoginRoutes(app: App, ctx: DashboardContext, providers: Map<string, LoginProvider>): void {
  const { db, config } = ctx;
  const base = dashboardPublicUrl(config);
  const callbackUrl = (id: string) => `${base}/api/v1/auth/${id}/callback`;
  const provider = (id: string) => {
    const p = providers.get(id);
    if (!p) throw notFound(`sign-in provider "${id}"`);
    return p;
  };

  app.get(
    '/api/v1/auth/providers',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'listLoginProviders',
        tags,
        summary: 'The providers configured for sign-in',
        response: {
          200: Type.Object({ providers: Type.Array(Type.Object({ id: Type.String(), loginUrl: Type.String() })) }),
        },
      },
    },
    async () => ({ providers: [...providers.keys()].map((id) => ({ id, loginUrl: `/api/v1/auth/${id}` })) }),
  );

  app.get(
    '/api/v1/auth/:provider',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'startLogin',
        tags,
        summary: 'Start signing in: redirects to the provider (github, google, or a configured OpenID issuer)',
        params: ProviderParams,
        querystring: Type.Object(
          {
            redirect: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 2000,
                description:
                  "where to go after login: the service's own public URL or an address on DASHBOARD_REDIRECT_ALLOWLIST",
              }),
            ),
            tenant: Type.Optional(Slug),
          },
          { additionalProperties: false },
        ),
        response: { 302: Type.Null(), ...errors(400, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const p = provider(request.params.provider);
      const { redirect, tenant } = request.query;
      // The service's own web app (at its public URL) may always receive the tokens.
      if (redirect !== undefined && !redirectAllowed(redirect, [`${base}/`, ...config.redirectAllowList])) {
        throw validation('redirect: not an allowed address (see DASHBOARD_REDIRECT_ALLOWLIST)');
      }
      let url: URL;
      const pending = await beginLogin(db, p.id, redirect ?? null, tenant ?? null);
      try {
        url = await p.authorizationUrl(pending, callbackUrl(p.id));
      } catch (err) {
        if (err instanceof LoginFailed) throw new HttpError(503, 'UNAVAILABLE', err.message);
        throw err;
      }
      reply.header('set-cookie', stateCookie(pending.state)).header('cache-control', 'no-store');
      return reply.redirect(url.href, 302);
    },
  );

  app.get(
    '/api/v1/auth/:provider/callback',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'finishLogin',
        tags,
        summary:
          "Called by the provider: answers the token pair (or redirects to the login's redirect with it in the fragment)",
        params: ProviderParams,
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 2000 })),
          state: Type.Optional(Type.String({ maxLength: 200 })),
          error: Type.Optional(Type.String({ maxLength: 200 })),
          error_description: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
        response: { 200: TokenPairSchema, 302: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const p = provider(request.params.provider);
      reply.header('set-cookie', clearedStateCookie()).header('cache-control', 'no-store');
      const { state } = request.query;
      const cookie = readStateCookie(request.headers.cookie);
      if (!state || !cookie || !safeEqual(state, cookie))
        throw validation('the login state is missing or does not match this browser; start the sign-in again');
      const pending = await consumeLogin(db, p.id, state);
      if (!pending) throw validation('this sign-in was already used or has expired; start the sign-in again');
      const fail = (status: number, code: ErrorCode, message: string) => {
        if (pending.redirect) {
          const to = new URL(pending.redirect);
          to.hash = new URLSearchParams({ error: code, error_description: message }).toString();
          return reply.redirect(to.href, 302);
        }
        throw new HttpError(status, code, message);
      };
      if (request.query.error)
        return fail(401, 'UNAUTHORIZED', `the provider refused the sign-in: ${request.query.error}`);
      const current = new URL(callbackUrl(p.id));
      current.search = new URLSearchParams(request.query as Record<string, string>).toString();
      let who;
      try {
        who = await p.finish(current, pending, callbackUrl(p.id));
      } catch (err) {
        if (err instanceof LoginFailed) {
          request.log.info({ provider: p.id, reason: err.message }, 'sign-in failed');
          return fail(401, 'UNAUTHORIZED', err.message);
        }
        throw err;
      }
      const found = await findSignInUser(db, p.id, who, pending.tenantSlug);
      if (!found) {
        request.log.info({ provider: p.id, verified: who.emailVerified }, 'sign-in by someone who is not a user');
        return fail(
          403,
          'FORBIDDEN',
          who.email && !who.emailVerified
            ? 'your email is not verified at the provider'
            : 'there is no account for you here; ask an admin of your tenant to add your email',
        );
      }
      // Before the session, so the access token carries the email as it is now.
      const { user, updated } = await updateProfileAtSignIn(db, found, who);
      const pair = await startSession(db, ctx.tokens, user, p.id);
      await recordAudit(db, {
        tenantId: user.tenantId,
        userId: user.id,
        action: 'user.sign_in',
        targetType: 'user',
        targetId: user.id,
        details: { provider: p.id, ...(updated.length ? { updated } : {}) },
      });
      if (pending.redirect) {
        const to = new URL(pending.redirect);
        to.hash = new URLSearchParams({
          accessToken: pair.accessToken,
          refreshToken: pair.refreshToken,
          expiresIn: String(pair.expiresIn),
          tokenType: pair.tokenType,
        }).toString();
        return reply.redirect(to.href, 302);
      }
      return pair;
    },
  );
}
