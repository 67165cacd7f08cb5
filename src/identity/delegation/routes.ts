import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { ADMIN, PERSON } from '../access/rules.ts';
import { personCaller } from '../access/person.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, ByTime, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { PrincipalOut, principalOut } from '../principals/out.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { findPrincipal, findPrincipals, type PrincipalView } from '../principals/view.ts';
import {
  agentIdsOf,
  approve,
  deny,
  findApproval,
  findApprovals,
  listExchanges,
  revokeApproval,
  type Approval,
} from './store.ts';
import { liveDelegatedTokens } from '../oidc/delegated-tokens.ts';

const Time = Type.String({ format: 'date-time' });
export const ApprovalOut = Type.Object({
  status: Type.Union(
    [Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied'), Type.Literal('revoked')],
    {
      description:
        'pending: a request waits (pending_scopes); approved: it may act with `scopes`; denied or revoked: it may not act.',
    },
  ),
  scopes: Type.Array(Type.String(), { description: 'Approved scopes.' }),
  pending_scopes: Type.Array(Type.String(), {
    description: 'Scopes the agent asked for and the person has not yet approved.',
  }),
  requested_at: Nullable(Time),
  approved_at: Nullable(Time),
  denied_at: Nullable(Time),
  revoked_at: Nullable(Time),
  revoked_reason: Nullable(Type.String()),
  last_used_at: Nullable(Time),
});
const DelegatedTokenOut = Type.Object({
  id: Uuid,
  actor_id: Uuid,
  delegation_chain: Type.Array(Uuid),
  parent_token_id: Nullable(Uuid),
  client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  audience: Type.Array(Type.String()),
  dpop_bound: Type.Boolean(),
  created_at: Time,
  expires_at: Time,
});
const PersonAgentOut = Type.Object({
  agent: PrincipalOut,
  approval: Nullable(ApprovalOut),
  live_tokens: Type.Array(DelegatedTokenOut, {
    description: 'Live tokens this agent (or an agent below it) holds for the person.',
  }),
});
const PersonAgents = pageOf(PersonAgentOut);
const ExchangeOut = Type.Object({
  id: Uuid,
  created_at: Time,
  principal_id: Uuid,
  actor_id: Uuid,
  delegation_chain: Type.Array(Uuid),
  client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  audience: Type.Array(Type.String()),
  outcome: Type.Union([Type.Literal('issued'), Type.Literal('refused')]),
  error: Nullable(Type.String({ description: 'The OAuth error of a refused exchange.' })),
  token_id: Nullable(Uuid),
  expires_at: Nullable(Time),
});

function approvalOut(a: Approval | undefined): Static<typeof ApprovalOut> | null {
  if (!a) return null;
  const { id: _id, principal_id: _p, agent_id: _a, created_at: _c, ...rest } = a;
  return rest;
}

/**
 * The agents acting, or asking to act, for a person, each with its approval and its live delegated tokens: one page in
 * agent id order (`cursor` is `next` of the previous page; a cursor this list did not give is a 400).
 */
export async function personAgents(
  db: Database,
  personId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Static<typeof PersonAgents>> {
  const ids = await agentIdsOf(db, personId, { limit: page.limit + 1, after: decodeCursor(page.cursor, ById)?.[0] });
  const { items: shown, next } = toPage(ids, page.limit, (id) => [id]);
  // Three statements for the page, whatever its length.
  const [tokens, agents, approvals] = await Promise.all([
    liveDelegatedTokens(db, personId, shown),
    findPrincipals(db, shown),
    findApprovals(db, personId, shown),
  ]);
  const items: Static<typeof PersonAgentOut>[] = [];
  for (const id of shown) {
    const agent = agents.get(id);
    if (!agent) continue;
    items.push({
      agent: principalOut(agent),
      approval: approvalOut(approvals.get(id)),
      live_tokens: tokens.filter((t) => t.delegation_chain.includes(id)),
    });
  }
  return { items, next };
}

/** Every one of a person's agents, page after page (the CLI prints them all). */
export async function allPersonAgents(db: Database, personId: string): Promise<Static<typeof PersonAgentOut>[]> {
  const items: Static<typeof PersonAgentOut>[] = [];
  let cursor: string | undefined;
  do {
    const page = await personAgents(db, personId, { limit: 500, cursor });
    items.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return items;
}

const AgentParams = Type.Object({ id: Uuid, agentId: Uuid });

/** Management API: a person's agents, approvals and exchange record (each route declares ADMIN access). */
export async function registerDelegationAdminRoutes(scope: TypedScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;
  const personOf = async (id: string) => {
    const p = await findPrincipal(deps.db, id);
    if (!p) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
    return p;
  };
  scope.get(
    '/principals/:id/agents',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listPersonAgents',
        tags,
        security,
        summary: "A person's agents, in id order: each with its approval and the live tokens it holds for them",
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: PersonAgents, ...Errors },
      },
    },
    async (request) => personAgents(deps.db, (await personOf(request.params.id)).id, request.query),
  );

  scope.delete(
    '/principals/:id/agents/:agentId/approval',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeAgentApproval',
        tags,
        security,
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

  scope.get(
    '/principals/:id/exchanges',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listDelegationExchanges',
        tags,
        security,
        summary: 'Token exchanges for this person or by this agent, newest first (issued and refused)',
        params: Type.Object({ id: Uuid }),
        querystring: Page,
        response: { 200: pageOf(ExchangeOut), ...Errors },
      },
    },
    async (request) => {
      await personOf(request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listExchanges(deps.db, request.params.id, {
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (x) => x.position,
        ({ position: _, ...x }) => x,
      );
    },
  );
}

/**
 * The person's own side, beside the management API: their agents, approvals and exchange record, with their access
 * token (any app, any scope; PERSON access, access/person.ts). A token an agent holds for them is refused there: an agent
 * must not approve itself. Only people have agents here: another principal's token is answered as not a person's.
 */
export async function registerPersonDelegationRoutes(
  app: App,
  deps: { db: Database; accounts: PrincipalDirectory },
): Promise<void> {
  const tags = ['agents'];
  const security = [{ personToken: [] }];
  const personOf = async (request: FastifyRequest): Promise<PrincipalView> => {
    const person = await deps.accounts.find(personCaller(request).subject);
    if (!person?.active || person.type !== 'human')
      throw new HttpError(401, 'UNAUTHORIZED', "send a person's access token: this one speaks for no person", {
        headers: { 'www-authenticate': 'Bearer realm="identity", error="invalid_token"' },
      });
    return person;
  };
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      scope.get(
        '/me/agents',
        {
          config: { access: PERSON },
          schema: {
            operationId: 'listMyAgents',
            tags,
            security,
            summary: 'My agents, in id order: their approvals, pending requests and the live tokens they hold for me',
            querystring: Page,
            response: { 200: PersonAgents, ...Errors },
          },
        },
        async (request) => personAgents(deps.db, (await personOf(request)).id, request.query),
      );

      for (const action of ['approve', 'deny'] as const) {
        scope.post(
          `/me/agents/:agentId/${action}`,
          {
            config: { access: PERSON },
            schema: {
              operationId: `${action}MyAgent`,
              tags,
              security,
              params: Type.Object({ agentId: Uuid }),
              response: { 200: ApprovalOut, ...Errors },
              summary:
                action === 'approve'
                  ? "Approve an agent's pending request: it may then act for me with those scopes"
                  : "Decline an agent's pending request",
            },
          },
          async (request) => {
            const person = await personOf(request);
            const done =
              action === 'approve'
                ? await approve(deps.db, person.id, request.params.agentId, person.id)
                : await deny(deps.db, person.id, request.params.agentId);
            if (!done) throw new HttpError(404, 'NOT_FOUND', 'no pending request of this agent');
            return approvalOut(await findApproval(deps.db, person.id, request.params.agentId))!;
          },
        );
      }

      scope.delete(
        '/me/agents/:agentId/approval',
        {
          config: { access: PERSON },
          schema: {
            operationId: 'revokeMyAgentApproval',
            tags,
            security,
            summary: 'Withdraw my approval of an agent; the tokens it holds for me are revoked',
            params: Type.Object({ agentId: Uuid }),
            response: { 204: Type.Null(), ...Errors },
          },
        },
        async (request, reply) => {
          const person = await personOf(request);
          if (!(await revokeApproval(deps.db, person.id, request.params.agentId, 'user_initiated')))
            throw new HttpError(404, 'NOT_FOUND', 'no approval or pending request of this agent');
          return reply.code(204).send(null);
        },
      );

      scope.get(
        '/me/exchanges',
        {
          config: { access: PERSON },
          schema: {
            operationId: 'listMyExchanges',
            tags,
            security,
            summary: 'Token exchanges agents made for me, newest first',
            querystring: Page,
            response: { 200: pageOf(ExchangeOut), ...Errors },
          },
        },
        async (request) => {
          const person = await personOf(request);
          const { limit, cursor } = request.query;
          const rows = await listExchanges(deps.db, person.id, {
            limit: limit + 1,
            after: decodeCursor(cursor, ByTime),
          });
          return toPage(
            rows,
            limit,
            (x) => x.position,
            ({ position: _, ...x }) => x,
          );
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
