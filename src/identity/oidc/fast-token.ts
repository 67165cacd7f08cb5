import { parse as parseForm, type ParsedUrlQuery } from 'node:querystring';
import type { App } from '../../kit/app.ts';
import type { ProviderHolder } from './mount.ts';
import { ROUTES } from './protocol.ts';
import {
  needsProvider,
  PROVIDER_POST_HEADERS,
  registerFastRoute,
  type FastRefusal,
  type FastRequest,
} from './fast-route.ts';
import { issueClientCredentials, type FastClientCredentialsDeps } from './fast-client-credentials.ts';

/**
 * A feature's grant answered by the fast route: the token response, or undefined to leave the request to the provider (or
 * a refusal of its own, once it has written: the delegation exchange).
 */
export type FastGrant = (
  request: FastRequest,
  params: ParsedUrlQuery,
) => Promise<Record<string, unknown> | FastRefusal | undefined>;

/**
 * POST /oauth/token's fast route (issue 14): the ordinary client-credentials request (fast-client-credentials.ts), and the
 * features' grants by grant type (`grants`: the API-key exchange and key-pair assertions, credentials/fast-grants.ts; the
 * delegation exchange, delegation/fast-exchange.ts), are
 * answered outside the provider's Koa stack; every other request, and any of these the issuers leave, goes to the
 * provider untouched.
 */
export async function registerFastToken(
  app: App,
  deps: FastClientCredentialsDeps & { holder: ProviderHolder; issuer: string; grants: ReadonlyMap<string, FastGrant> },
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
      const grant = typeof params.grant_type === 'string' ? deps.grants.get(params.grant_type) : undefined;
      return grant?.(request, params);
    },
  });
}
