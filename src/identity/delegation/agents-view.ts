import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { Database } from '../../kit/db.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, ByTime, Nullable, Uuid } from '../api/schemas.ts';
import { PrincipalOut, principalOut } from '../principals/out.ts';
import { findPrincipals } from '../principals/view.ts';
import { liveDelegatedTokens } from '../oidc/delegated-tokens.ts';
import { agentIdsOf, findApprovals, listExchanges, type Approval } from './store.ts';

/** A person's agents, approvals and exchanges as the management API and the person's own API show them. */

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
  requested_at: Nullable(Timestamp),
  approved_at: Nullable(Timestamp),
  denied_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  revoked_reason: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp),
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
  created_at: Timestamp,
  expires_at: Timestamp,
});
const PersonAgentOut = Type.Object({
  agent: PrincipalOut,
  approval: Nullable(ApprovalOut),
  live_tokens: Type.Array(DelegatedTokenOut, {
    description: 'Live tokens this agent (or an agent below it) holds for the person.',
  }),
});
export const PersonAgents = pageOf(PersonAgentOut);
export const ExchangeOut = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  principal_id: Uuid,
  actor_id: Uuid,
  delegation_chain: Type.Array(Uuid),
  client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  audience: Type.Array(Type.String()),
  outcome: Type.Union([Type.Literal('issued'), Type.Literal('refused')]),
  error: Nullable(Type.String({ description: 'The OAuth error of a refused exchange.' })),
  token_id: Nullable(Uuid),
  expires_at: Nullable(Timestamp),
});

export function approvalOut(a: Approval | undefined): Static<typeof ApprovalOut> | null {
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

/** One page of the exchanges for this person or by this agent, newest first. */
export async function exchangesPage(
  db: Database,
  principalId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  const rows = await listExchanges(db, principalId, {
    limit: page.limit + 1,
    after: decodeCursor(page.cursor, ByTime),
  });
  return toPage(
    rows,
    page.limit,
    (x) => x.position,
    ({ position: _, ...x }) => x,
  );
}
