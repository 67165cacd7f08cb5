import type { FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import { PUBLIC } from '../../kit/access.ts';
import type { OidcProvider } from './provider.ts';

/** Holds the live provider; a key rotation builds a new one and swaps it in without dropping requests. */
export interface ProviderHolder {
  current: OidcProvider;
}

/**
 * Mounts oidc-provider's endpoints in the Fastify app. They live in their own encapsulated context whose
 * only content-type parser leaves the body stream unread, so the provider parses its own bodies
 * exactly as it expects; Fastify then steps aside (hijack) and the provider answers on the raw response.
 */
export async function mountProvider(app: App, holder: ProviderHolder, issuer: string): Promise<void> {
  const publicUrl = new URL(issuer);
  await mountFormRedirects(app);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // The two documents are read-only (OPTIONS for browsers' CORS preflight); the OAuth endpoints take GET and POST.
    for (const [url, method] of [
      ['/oauth/*', ['GET', 'POST', 'OPTIONS', 'HEAD']],
      ['/.well-known/openid-configuration', ['GET', 'OPTIONS', 'HEAD']],
      ['/.well-known/jwks.json', ['GET', 'OPTIONS', 'HEAD']],
    ] as const) {
      scope.route({
        method: [...method],
        url,
        // OAuth authenticates its own callers (clients, tokens, the browser's session), in OAuth's error shape.
        config: { access: PUBLIC },
        schema: { hide: true },
        bodyLimit: 64 * 1024,
        handler: (request, reply) => {
          reply.hijack();
          reply.raw.setHeader('x-request-id', request.id);
          presentToProvider(request, publicUrl);
          handlerOf(holder.current)(request.raw, reply.raw);
        },
      });
    }
  });
}

/**
 * The provider builds endpoint URLs from the request: present it the issuer's own origin, and the
 * client address as Fastify determined it, so neither comes from a header the caller controls.
 */
export function presentToProvider(request: FastifyRequest, publicUrl: URL): void {
  const headers = request.raw.headers;
  headers.host = publicUrl.host;
  headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  headers['x-forwarded-for'] = request.ip;
  delete headers['x-forwarded-host'];
  delete headers['x-forwarded-port'];
}

const handlers = new WeakMap<OidcProvider, ReturnType<OidcProvider['callback']>>();
/** The provider's request handler, made once per provider (a key rotation builds a new provider). */
export function handlerOf(provider: OidcProvider): ReturnType<OidcProvider['callback']> {
  let h = handlers.get(provider);
  if (!h) {
    h = provider.callback();
    handlers.set(provider, h);
  }
  return h;
}

/** Longest form accepted at the two redirected endpoints: its parameters must fit the GET request's URL (16 KiB of headers). */
const FORM_REDIRECT_LIMIT = 8 * 1024;

/**
 * `POST /oauth/authorize` (the contract's "GET and POST") and `POST /oauth/logout`: oidc-provider v9 offers POST at these two
 * only with `SameSite=None` session cookies (a cross-site form post does not carry Lax cookies, so the provider would not
 * see the browser's session). The form's parameters are sent on to the GET endpoint instead (303): that top-level GET
 * carries the Lax cookies, and the provider checks the parameters exactly as for a GET (a repeated one included).
 */
async function mountFormRedirects(app: App): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_REDIRECT_LIMIT },
      (_request, body, done) => {
        done(null, new URLSearchParams(body as string).toString());
      },
    );
    for (const path of ['/oauth/authorize', '/oauth/logout']) {
      scope.post(path, { config: { access: PUBLIC }, schema: { hide: true } }, async (request, reply) => {
        const query = typeof request.body === 'string' ? request.body : '';
        return reply.header('cache-control', 'no-store').redirect(query ? `${path}?${query}` : path, 303);
      });
    }
  });
}
