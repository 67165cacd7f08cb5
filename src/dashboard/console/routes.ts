import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { OPEN } from '../auth/access.ts';
import type { App } from '../../kit/app.ts';
import type { ConsoleLinks } from './links.ts';
import { ConsoleConfig } from './schema.ts';

/**
 * `GET /api/v1/console/config`: what the web app needs to be the platform's console, from the links `platform start`
 * made; open to anyone (counted against the address like the sign-in's other routes), since it holds only public
 * addresses and ids and the app needs it before anyone is signed in.
 */
export function registerConsoleConfig(app: App, links: ConsoleLinks | undefined): void {
  const answer = links
    ? {
        identity: {
          issuer: links.issuer,
          clientId: links.clientId,
          redirectUri: links.redirectUri,
          scope: links.scope,
        },
        services: links.services,
      }
    : { identity: null, services: [] };
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/console/config',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'getConsoleConfig',
        tags: ['console'],
        summary: "The console's sign-in at identity and the linked services' addresses",
        response: { 200: ConsoleConfig },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return answer;
    },
  );
}

/** The origins the console's pages connect to besides their own: identity and each linked service. */
export function consoleOrigins(links: ConsoleLinks | undefined): string[] {
  if (!links) return [];
  return [...new Set([links.issuer, ...links.services.map((s) => s.url)].map((u) => new URL(u).origin))];
}
