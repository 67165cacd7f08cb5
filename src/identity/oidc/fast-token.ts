import { parse as parseForm } from 'node:querystring';
import type { App } from '../../kit/app.ts';
import type { ProviderHolder } from './mount.ts';
import { ROUTES } from './provider.ts';
import { needsProvider, PROVIDER_POST_HEADERS, registerFastRoute } from './fast-route.ts';
import { issueClientCredentials, type FastClientCredentialsDeps } from './fast-client-credentials.ts';
import { issueForApiKey, type FastApiKeyDeps } from '../credentials/fast-api-key.ts';

/**
 * POST /oauth/token's fast route (issue 14): the ordinary client-credentials request (fast-client-credentials.ts) and the
 * ordinary API-key exchange (credentials/fast-api-key.ts) are answered outside the provider's Koa stack; every other
 * request, and any of these the issuers leave, goes to the provider untouched.
 */
export async function registerFastToken(app: App, deps: FastClientCredentialsDeps & FastApiKeyDeps & { holder: ProviderHolder; issuer: string }): Promise<void> {
  await registerFastRoute(app, {
    url: ROUTES.token,
    holder: deps.holder,
    issuer: deps.issuer,
    headers: PROVIDER_POST_HEADERS,
    answer: async (request, body) => {
      if (needsProvider(request.headers)) return undefined;
      const params = parseForm(body.toString('utf8'));
      return params.grant_type === 'client_credentials' ? issueClientCredentials(deps, request, params) : issueForApiKey(deps, request, params);
    },
  });
}
