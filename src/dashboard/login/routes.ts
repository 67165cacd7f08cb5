import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { OPEN } from '../auth/access.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { TokenPairSchema } from '../schemas.ts';
import { finishLogin } from './callback.ts';
import type { LoginProvider } from './provider.ts';
import { CallbackQuery, ProviderList, ProviderParams, StartQuery } from './schemas.ts';
import { startLogin } from './start.ts';
import { clearedStateCookie, stateCookie } from './state.ts';

const tags = ['auth'];

/**
 * Sign-in through an external provider (Document 1's login flow). The start sets the single-use state cookie and
 * redirects to the provider; the callback (callback.ts) answers the token pair: as JSON, or — when the login named an
 * allowed `redirect` — by redirecting there with the pair in the URL fragment (never sent to a server, never in a log).
 */
export function registerLoginRoutes(app: App, ctx: DashboardContext, providers: Map<string, LoginProvider>): void {
  const base = dashboardPublicUrl(ctx.config);
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
        response: { 200: ProviderList },
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
        querystring: StartQuery,
        response: { 302: Type.Null(), ...errorResponses(400, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const p = provider(request.params.provider);
      const { state, url } = await startLogin(ctx, p, base, callbackUrl(p.id), request.query);
      reply.header('set-cookie', stateCookie(state)).header('cache-control', 'no-store');
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
        querystring: CallbackQuery,
        response: { 200: TokenPairSchema, 302: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const p = provider(request.params.provider);
      reply.header('set-cookie', clearedStateCookie()).header('cache-control', 'no-store');
      return finishLogin(ctx, p, request, request.query, reply, callbackUrl(p.id));
    },
  );
}
