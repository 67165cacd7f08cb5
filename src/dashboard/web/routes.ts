import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import type { App } from '../../kit/app.ts';
import { PUBLIC } from '../../kit/access.ts';
import { notFound } from '../errors.ts';
import { loadWebFiles, type WebFile } from './files.ts';

/**
 * Only the app's own origin: no inline script or style element, no CDN, no framing. Style attributes set
 * from script (React's `style`, ECharts' tooltips) go through the CSSOM, which this policy allows. As the platform's
 * console the app also calls the linked services' APIs: their origins are added to `connect-src`, nothing else.
 */
export function contentSecurityPolicy(connectTo: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    ["connect-src 'self'", ...connectTo].join(' '),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The policy of a dashboard started alone. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The dashboard's web app at `/`: hashed files under `/assets/` cached for a year, `index.html` revalidated
 * on every load (`no-cache`) so a deploy takes effect at once, and every other path without a file
 * extension answered with `index.html` so the app's own routes survive a reload. `/api/*` never falls back.
 */
export function registerWebRoutes(
  app: App,
  files: Map<string, WebFile> = loadWebFiles(),
  connectTo: readonly string[] = [],
): void {
  const index = files.get('/index.html');
  const policy = contentSecurityPolicy(connectTo);
  const send = (reply: FastifyReply, file: WebFile, cache: string) =>
    reply
      .header('content-type', file.type)
      .header('cache-control', cache)
      .header('content-security-policy', policy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .send(file.body);
  const sendIndex = (reply: FastifyReply) => {
    if (!index) throw new HttpError(503, 'UNAVAILABLE', 'the web app is not built: run `npm run build`');
    return send(reply, index, 'no-cache');
  };

  // The app's files come from memory and are the same for everyone: like /health they are not counted against the
  // per-address limit (60 a minute before sign-in), which a few page loads of chunked JavaScript would otherwise use up.
  app.get(
    '/',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getWebApp',
        tags: ['web'],
        summary: 'The dashboard web app (index.html); its own routes below / answer the same page',
        response: { 200: Type.String({ description: 'text/html' }), ...errorResponses(503) },
      },
    },
    async (_request, reply) => sendIndex(reply),
  );
  // The catch-all is described by GET / (the same page) and the API's own paths.
  app.get('/*', { config: { access: PUBLIC }, schema: { hide: true } }, async (request, reply) => {
    let path: string;
    try {
      path = decodeURIComponent(request.url.split('?')[0]!);
    } catch {
      throw notFound(`file ${request.url.split('?')[0]}`);
    }
    if (path === '/api' || path.startsWith('/api/')) throw notFound(`route ${request.method} ${path}`);
    if (path === '/index.html') return sendIndex(reply);
    const file = files.get(path);
    if (file) return send(reply, file, path.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
    // A missing asset or file is a 404, not the app: a stale page asking for an old chunk must see it fail.
    if (path.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(path)) throw notFound(`file ${path}`);
    return sendIndex(reply);
  });
}
