import type { FastifyInstance } from 'fastify';

/**
 * Treats an empty body sent as `application/json` as no body at all.
 *
 * Many HTTP clients (axios instances, generated SDKs, `fetch` wrappers) set `Content-Type: application/json`
 * on every request, a `DELETE` or a body-less `POST` included. Fastify's own parser refuses such a request
 * before the route is reached (FST_ERR_CTP_EMPTY_JSON_BODY), so a revocation answered 400 for a header. Without
 * a body the route's schema decides, exactly as for a request without the header: a route that needs a body
 * still answers its 400 naming it. Everything else is Fastify's parser as configured (prototype-poisoning
 * checks included); whitespace alone is still not JSON.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body.length === 0) done(null, undefined);
    // Fastify's own parser answers through `done` and returns nothing; its type also admits a promise-returning parser.
    else void parseJson(request, body, done);
  });
}
