import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ADMIN } from '../access/rules.ts';
import { pageOf } from '../../kit/paging.ts';
import { Errors, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingPrincipal } from '../principals/out.ts';
import { revokeApproval } from './store.ts';
import { ExchangeOut, exchangesPage, PersonAgents, personAgents } from './agents-view.ts';

const AgentParams = Type.Object({ id: Uuid, agentId: Uuid });
const MANAGEMENT = ['management'];

/** Management API: a person's agents, approvals and exchange record (each route declares ADMIN access). */
export async function registerDelegationAdminRoutes(scope: TypedScope, deps: { db: Database }): Promise<void> {
  listPersonAgentsRoute(scope, deps);
  revokeAgentApprovalRoute(scope, deps);
  listDelegationExchangesRoute(scope, deps);
}

function listPersonAgentsRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/principals/:id/agents',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPersonAgents',
        tags: MANAGEMENT,
        security: Security,
        summary: "A person's agents, in id order: each with its approval and the live tokens it holds for them",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: PersonAgents, ...Errors },
      },
    },
    async (request) => personAgents(deps.db, (await existingPrincipal(deps.db, request.params.id)).id, request.query),
  );
}

function revokeAgentApprovalRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.delete(
    '/principals/:id/agents/:agentId/approval',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeAgentApproval',
        tags: MANAGEMENT,
        security: Security,
        summary:
          "Withdraw a person's approval of an agent; the tokens it holds for them (and those delegated from them) are revoked",
        params: AgentParams,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      if (!(await revokeApproval(deps.db, request.params.id, request.params.agentId, 'admin_revoked')))
        throw new HttpError(404, 'NOT_FOUND', 'no approval or pending request of this agent for this person');
      return reply.code(204).send(null);
    },
  );
}

function listDelegationExchangesRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/principals/:id/exchanges',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listDelegationExchanges',
        tags: MANAGEMENT,
        security: Security,
        summary: 'Token exchanges for this person or by this agent, newest first (issued and refused)',
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(ExchangeOut), ...Errors },
      },
    },
    async (request) => {
      await existingPrincipal(deps.db, request.params.id);
      return exchangesPage(deps.db, request.params.id, request.query);
    },
  );
}
