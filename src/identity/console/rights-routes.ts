import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Security, Uuid } from '../api/schemas.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { findPrincipal } from '../principals/view.ts';
import { actorOf } from './admin-changes.ts';
import { RIGHT_NAMES, type ConsoleRight } from '../principals/console-rights.ts';
import { rightsOf, setConsoleRights, type RightHeld } from './rights-store.ts';

export interface ConsoleRightsDeps {
  db: Database;
  accounts: PrincipalDirectory;
  catalog: readonly ConsoleRight[];
}

const RightName = Type.Union([Type.Literal('identity'), Type.Literal('audits'), Type.Literal('events')], {
  description: 'A section of the console: identity, audits or events',
});
const RightsOut = Type.Object({
  rights: Type.Array(
    Type.Object({
      name: RightName,
      scope: Type.String({ description: 'The scope of identity that carries the right in an access token.' }),
      description: Type.String(),
      held: Type.Boolean(),
    }),
  ),
});
const rightsOut = (rights: RightHeld[]) => ({
  rights: rights.map((r) => ({ name: r.name, scope: r.scope, description: r.description, held: r.held })),
});

/** `GET` and `PUT /api/v1/principals/:id/console-rights`: which sections of the platform's console a person may open. */
export async function registerConsoleRights(app: App, deps: ConsoleRightsDeps): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      scope.get(
        '/principals/:id/console-rights',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getConsoleRights',
            tags: ['management'],
            security: Security,
            summary: "A person's console rights: each section of the console, and whether they hold its scope",
            params: Type.Object({ id: Uuid }),
            response: { 200: RightsOut, ...Errors },
          },
        },
        async (request) => {
          const principal = await findPrincipal(deps.db, request.params.id);
          if (!principal) throw new HttpError(404, 'NOT_FOUND', `no principal ${request.params.id}`);
          return rightsOut(rightsOf(principal, deps.catalog));
        },
      );
      scope.put(
        '/principals/:id/console-rights',
        {
          config: { access: ADMIN, recordsOwnChange: true },
          schema: {
            operationId: 'setConsoleRights',
            tags: ['management'],
            security: Security,
            summary:
              "Set a person's console rights (the scopes admin, audits, ingest:admin), recorded with who changed them; taking the identity right from its last holder is a 409",
            params: Type.Object({ id: Uuid }),
            body: Type.Object(
              { rights: Type.Array(RightName, { uniqueItems: true, maxItems: RIGHT_NAMES.length }) },
              { additionalProperties: false },
            ),
            response: { 200: RightsOut, ...Errors },
          },
        },
        async (request) => {
          const after = await setConsoleRights(deps.db, {
            principalId: request.params.id,
            wanted: request.body.rights,
            catalog: deps.catalog,
            actor: actorOf(request),
          });
          deps.accounts.invalidate(request.params.id);
          return rightsOut(after);
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
