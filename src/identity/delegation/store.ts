import type { Database, Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { revokeHeldTokens, tokenHolderIds } from '../oidc/delegated-tokens.ts';

export interface Approval {
  id: string;
  principal_id: string;
  agent_id: string;
  status: 'pending' | 'approved' | 'denied' | 'revoked';
  scopes: string[];
  pending_scopes: string[];
  requested_at: string | null;
  approved_at: string | null;
  denied_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  last_used_at: string | null;
  created_at: string;
}

const APPROVAL_COLUMNS = `a.id, a.principal_id, a.agent_id, a.scopes, a.pending_scopes, ${isoUtc('a.requested_at')} AS requested_at,
  ${isoUtc('a.approved_at')} AS approved_at, ${isoUtc('a.denied_at')} AS denied_at, ${isoUtc('a.revoked_at')} AS revoked_at, a.revoked_reason,
  ${isoUtc('a.last_used_at')} AS last_used_at, ${isoUtc('a.created_at')} AS created_at,
  CASE WHEN jsonb_array_length(a.pending_scopes) > 0 THEN 'pending'
       WHEN jsonb_array_length(a.scopes) > 0 THEN 'approved'
       WHEN a.revoked_at IS NOT NULL THEN 'revoked' ELSE 'denied' END AS status`;

export async function findApproval(db: Queryable, principalId: string, agentId: string): Promise<Approval | undefined> {
  const r = await db.query<Approval>(
    `SELECT ${APPROVAL_COLUMNS} FROM agent_approvals a WHERE a.principal_id = $1 AND a.agent_id = $2`,
    [principalId, agentId],
  );
  return r.rows[0];
}

/** The person's approvals of the agents `agentIds` that have one, by agent id, in one statement. */
export async function findApprovals(
  db: Queryable,
  principalId: string,
  agentIds: readonly string[],
): Promise<Map<string, Approval>> {
  if (agentIds.length === 0) return new Map();
  const r = await db.query<Approval>(
    `SELECT ${APPROVAL_COLUMNS} FROM agent_approvals a WHERE a.principal_id = $1 AND a.agent_id = ANY($2::uuid[])`,
    [principalId, agentIds],
  );
  return new Map(r.rows.map((a) => [a.agent_id, a]));
}

/** Whether the person has approved this agent for every one of `scopes`; notes the use when so. */
export async function approvedFor(
  db: Queryable,
  principalId: string,
  agentId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const r = await db.query(
    `UPDATE agent_approvals SET last_used_at = now() WHERE principal_id = $1 AND agent_id = $2 AND revoked_at IS NULL AND scopes @> $3::jsonb`,
    [principalId, agentId, JSON.stringify(scopes)],
  );
  return r.rowCount > 0;
}

/** Records (or widens) the agent's pending request to act for the person with `scopes` beyond those already approved. */
export async function requestApproval(
  db: Queryable,
  principalId: string,
  agentId: string,
  scopes: readonly string[],
): Promise<void> {
  await db.query(
    `INSERT INTO agent_approvals (principal_id, agent_id, pending_scopes, requested_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (principal_id, agent_id) DO UPDATE SET
       pending_scopes = (SELECT coalesce(jsonb_agg(DISTINCT s), '[]'::jsonb) FROM jsonb_array_elements_text(agent_approvals.pending_scopes || EXCLUDED.pending_scopes) s
                          WHERE NOT agent_approvals.scopes ? s),
       requested_at = now(), updated_at = now()`,
    [principalId, agentId, JSON.stringify(scopes)],
  );
}

/**
 * The person (or an admin) approves the pending request: its scopes join the approved ones. `by` is who approved (null:
 * the service's admin token, which is no principal). False when nothing is pending.
 */
export async function approve(
  db: Queryable,
  principalId: string,
  agentId: string,
  by: string | null,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE agent_approvals SET
       scopes = (SELECT coalesce(jsonb_agg(DISTINCT s), '[]'::jsonb) FROM jsonb_array_elements_text(scopes || pending_scopes) s),
       pending_scopes = '[]'::jsonb, approved_at = now(), approved_by = $3, revoked_at = NULL, revoked_reason = NULL, updated_at = now()
     WHERE principal_id = $1 AND agent_id = $2 AND jsonb_array_length(pending_scopes) > 0`,
    [principalId, agentId, by],
  );
  return r.rowCount > 0;
}

/** The person declines the pending request; what was approved before stays. False when nothing is pending. */
export async function deny(db: Queryable, principalId: string, agentId: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE agent_approvals SET pending_scopes = '[]'::jsonb, denied_at = now(), updated_at = now()
      WHERE principal_id = $1 AND agent_id = $2 AND jsonb_array_length(pending_scopes) > 0`,
    [principalId, agentId],
  );
  return r.rowCount > 0;
}

/**
 * Withdraws an approval (the person: `user_initiated`, an admin: `admin_revoked`) and revokes every live token the agent
 * holds for the person — and, through the cascade, every token delegated from those. False when nothing was approved.
 */
export async function revokeApproval(
  db: Database,
  principalId: string,
  agentId: string,
  reason: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE agent_approvals SET scopes = '[]'::jsonb, pending_scopes = '[]'::jsonb, revoked_at = now(), revoked_reason = $3, updated_at = now()
        WHERE principal_id = $1 AND agent_id = $2 AND (jsonb_array_length(scopes) > 0 OR jsonb_array_length(pending_scopes) > 0)`,
      [principalId, agentId, reason],
    );
    if (r.rowCount === 0) return false;
    await revokeHeldTokens(tx, principalId, agentId);
    return true;
  });
}

export interface ExchangeRecord {
  principalId: string;
  actorId: string;
  chain: readonly string[];
  clientId: string;
  scopes: readonly string[];
  audience: readonly string[];
  outcome: 'issued' | 'refused';
  error?: string | undefined;
  tokenId?: string | undefined;
  parentTokenId?: string | undefined;
  expiresAt?: Date | undefined;
  clientIp?: string | undefined;
}

export async function recordExchange(db: Queryable, e: ExchangeRecord): Promise<void> {
  await db.query(
    `INSERT INTO delegation_exchanges (principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, token_id, parent_token_id, expires_at, client_ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      e.principalId,
      e.actorId,
      JSON.stringify(e.chain),
      e.clientId,
      JSON.stringify(e.scopes),
      JSON.stringify(e.audience),
      e.outcome,
      e.error ?? null,
      e.tokenId ?? null,
      e.parentTokenId ?? null,
      e.expiresAt ?? null,
      e.clientIp ?? null,
    ],
  );
}

export interface ExchangeView {
  id: string;
  created_at: string;
  principal_id: string;
  actor_id: string;
  delegation_chain: string[];
  client_id: string;
  scopes: string[];
  audience: string[];
  outcome: 'issued' | 'refused';
  error: string | null;
  token_id: string | null;
  expires_at: string | null;
}

/** Exchanges for this person, or by this agent, newest first; `after` is a previous row's position. */
export async function listExchanges(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(ExchangeView & { position: [string, string] })[]> {
  const r = await db.query<ExchangeView & { sort_at: string }>(
    `SELECT id, ${isoUtc('created_at')} AS created_at, principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, token_id,
            ${isoUtc('expires_at')} AS expires_at, created_at::text AS sort_at
       FROM delegation_exchanges
      WHERE (principal_id = $1 OR actor_id = $1) AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY delegation_exchanges.created_at DESC, delegation_exchanges.id DESC LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...x }) => ({ ...x, position: [sort_at, x.id] }));
}

/**
 * The agents that act, or asked to act, for this person: bound to them (delegating_principal_id), with an approval row,
 * or holding a live token for them (oidc/delegated-tokens.ts). In id order; `after` is the last id of the previous page.
 */
export async function agentIdsOf(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: string | undefined },
): Promise<string[]> {
  const [asked, holders] = await Promise.all([
    db.query<{ id: string }>(
      `SELECT id FROM (
         SELECT principal_id AS id FROM agents WHERE delegating_principal_id = $1
         UNION SELECT agent_id FROM agent_approvals WHERE principal_id = $1) a
        WHERE $2::uuid IS NULL OR id > $2
        ORDER BY id LIMIT $3`,
      [principalId, page.after ?? null, page.limit],
    ),
    tokenHolderIds(db, principalId, page),
  ]);
  // Both in id order (a UUID's text sorts as the UUID does): the first `limit` of their union.
  return [...new Set([...asked.rows.map((x) => x.id), ...holders])].sort().slice(0, page.limit);
}
