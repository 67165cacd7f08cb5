import { parse as parseForm } from 'node:querystring';
import type { App } from '../../kit/app.ts';
import type { ProviderHolder } from './mount.ts';
import { ROUTES } from './provider.ts';
import { needsProvider, PROVIDER_POST_HEADERS, registerFastRoute } from './fast-route.ts';
import { issueClientCredentials, type FastClientCredentialsDeps } from './fast-client-credentials.ts';
import { issueForApiKey, issueForAssertion, type FastCredentialGrantDeps } from '../credentials/fast-grants.ts';
import { JWT_BEARER } from '../credentials/grants.ts';

/**
 * POST /oauth/token's fast route (issue 14): the ordinary client-credentials request (fast-client-credentials.ts), API-key
 * exchange and key-pair assertion (credentials/fast-grants.ts) are answered outside the provider's Koa stack; every other
 * request, and any of these the issuers leave, goes to the provider untouched.
 */
export async function registerFastToken(
  app: App,
  deps: FastClientCredentialsDeps & FastCredentialGrantDeps & { holder: ProviderHolder },
): Promise<void> {
  await registerFastRoute(app, {
    url: ROUTES.token,
    holder: deps.holder,
    issuer: deps.issuer,
    headers: PROVIDER_POST_HEADERS,
    answer: async (request, body) => {
      if (needsProvider(request.headers)) return undefined;
      const params = parseForm(body.toString('utf8'));
      if (params.grant_type === 'client_credentials') return issueClientCredentials(deps, request, params);
      return params.grant_type === JWT_BEARER
        ? issueForAssertion(deps, request, params)
        : issueForApiKey(deps, request, params);
    },
  });
}
