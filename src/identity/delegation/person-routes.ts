import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { PERSON } from '../access/rules.ts';
import { personCaller } from '../access/person.ts';
import { pageOf } from '../../kit/paging.ts';
import { Errors, Page, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import { approve, deny, findApproval, revokeApproval } from './store.ts';
import { ApprovalOut, approvalOut, ExchangeOut, exchangesPage, PersonAgents, personAgents } from './agents-view.ts';

const PERSON_TAGS = ['agents'];
const PERSON_SECURITY = [{ personToken: [] }];

/** The person a PERSON route's token speaks for; 401 when it speaks for no active person. */
async function personOf(accounts: PrincipalDirectory, request: FastifyRequest): Promise<PrincipalView> {
  const person = await accounts.find(personCaller(request).subject);
  if (!person?.active || person.type !== 'human')
    throw new HttpError(401, 'UNAUTHORIZED', "send a person's access token: this one speaks for no person", {
      headers: { 'www-authenticate': 'Bearer realm="identity", error="invalid_token"' },
    });
  return person;
}

type PersonDeps = { db: Database; accounts: PrincipalDirectory };

/**
 * The person's own side, beside the management API: their agents, approvals and exchange record, with their access
 * token (any app, any scope; PERSON access, access/person.ts). A token an agent holds for them is refused there: an agent
 * must not approve itself. Only people have agents here: another principal's token is answered as not a person's.
 */
export async function registerPersonDelegationRoutes(app: App, deps: PersonDeps): Promise<void> {
  await app.register(async (plain) => personRoutes(plain.withTypeProvider<TypeBoxTypeProvider>(), deps), {
    prefix: '/api/v1',
  });
}

function personRoutes(scope: TypedScope, deps: PersonDeps): void {
  listMyAgentsRoute(scope, deps);
  decideMyAgentRoutes(scope, deps);
  revokeMyAgentApprovalRoute(scope, deps);
  listMyExchangesRoute(scope, deps);
}

function listMyAgentsRoute(scope: TypedScope, deps: PersonDeps): void {
  scope.get(
    '/me/agents',
    {
      config: { access: PERSON },
      schema: {
        operationId: 'listMyAgents',
        tags: PERSON_TAGS,
        security: PERSON_SECURITY,
        summary: 'My agents, in id order: their approvals, pending requests and the live tokens they hold for me',
        querystring: Page,
        response: { 200: PersonAgents, ...Errors },
      },
    },
    async (request) => personAgents(deps.db, (await personOf(deps.accounts, request)).id, request.query),
  );
}

function decideMyAgentRoutes(scope: TypedScope, deps: PersonDeps): void {
  for (const action of ['approve', 'deny'] as const) {
    scope.post(
      `/me/agents/:agentId/${action}`,
      {
        config: { access: PERSON },
        schema: {
          operationId: `${action}MyAgent`,
          tags: PERSON_TAGS,
          security: PERSON_SECURITY,
          params: Type.Object({ agentId: Uuid }),
          response: { 200: ApprovalOut, ...Errors },
          summary:
            action === 'approve'
              ? "Approve an agent's pending request: it may then act for me with those scopes"
              : "Decline an agent's pending request",
        },
      },
      async (request) => {
        const person = await personOf(deps.accounts, request);
        const done =
          action === 'approve'
            ? await approve(deps.db, person.id, request.params.agentId, person.id)
            : await deny(deps.db, person.id, request.params.agentId);
        if (!done) throw new HttpError(404, 'NOT_FOUND', 'no pending request of this agent');
        return approvalOut(await findApproval(deps.db, person.id, request.params.agentId))!;
      },
    );
  }
}

function revokeMyAgentApprovalRoute(scope: TypedScope, deps: PersonDeps): void {
  scope.delete(
    '/me/agents/:agentId/approval',
    {
      config: { access: PERSON },
      schema: {
        operationId: 'revokeMyAgentApproval',
        tags: PERSON_TAGS,
        security: PERSON_SECURITY,
        summary: 'Withdraw my approval of an agent; the tokens it holds for me are revoked',
        params: Type.Object({ agentId: Uuid }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      const person = await personOf(deps.accounts, request);
      if (!(await revokeApproval(deps.db, person.id, request.params.agentId, 'user_initiated')))
        throw new HttpError(404, 'NOT_FOUND', 'no approval or pending request of this agent');
      return reply.code(204).send(null);
    },
  );
}

function listMyExchangesRoute(scope: TypedScope, deps: PersonDeps): void {
  scope.get(
    '/me/exchanges',
    {
      config: { access: PERSON },
      schema: {
        operationId: 'listMyExchanges',
        tags: PERSON_TAGS,
        security: PERSON_SECURITY,
        summary: 'Token exchanges agents made for me, newest first',
        querystring: Page,
        response: { 200: pageOf(ExchangeOut), ...Errors },
      },
    },
    async (request) => {
      const person = await personOf(deps.accounts, request);
      return exchangesPage(deps.db, person.id, request.query);
    },
  );
}
