/**
 * The OpenAPI description of the 405s of `/v1/events` (Document 3: any method but POST is 405). The route
 * that answers them takes every method at once, so it is hidden and these operations are written out: one
 * per method OpenAPI can name (WebDAV's methods and QUERY get the same answer without a place here).
 */
export const EVENTS_NOT_ALLOWED = {
  '/v1/events': Object.fromEntries(
    ['get', 'put', 'patch', 'delete', 'head', 'trace'].map((method) => [
      method,
      {
        operationId: `${method}EventsNotAllowed`,
        tags: ['events'],
        summary: `${method.toUpperCase()} is not allowed: 405 with \`Allow: POST\`, whatever the body`,
        responses: {
          405: {
            description: 'Only POST (and a CORS preflight) is allowed on /v1/events; answered before the body is read',
            headers: { Allow: { schema: { type: 'string', const: 'POST' } } },
            ...(method === 'head'
              ? {}
              : { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }),
          },
        },
      },
    ]),
  ),
};
