import type { Database } from '../../kit/db.ts';
import { findPrincipal } from '../principals/view.ts';
import { liveDelegatedTokens } from '../oidc/delegated-tokens.ts';
import type { AgentCard } from './page.ts';
import { agentIdsOf, approve, deny, findApproval, revokeApproval } from './store.ts';

/** How many agent ids the page reads at once. */
const PAGE = 500;

/** What the agents page shows: every agent with an approval row for the person, and how many live tokens each holds. */
export async function agentCards(db: Database, personId: string): Promise<AgentCard[]> {
  // The page shows every agent, so it reads the list page after page.
  const ids: string[] = [];
  for (;;) {
    const page = await agentIdsOf(db, personId, { limit: PAGE, after: ids.at(-1) });
    ids.push(...page);
    if (page.length < PAGE) break;
  }
  const tokens = await liveDelegatedTokens(db, personId, ids);
  const agents: AgentCard[] = [];
  for (const id of ids) {
    const [agent, approval] = await Promise.all([findPrincipal(db, id), findApproval(db, personId, id)]);
    if (!agent?.agent || !approval) continue;
    agents.push({
      id,
      name: agent.displayName,
      modelId: agent.agent.modelId,
      version: agent.agent.version,
      status: approval.status,
      scopes: approval.scopes,
      pendingScopes: approval.pending_scopes,
      liveTokens: tokens.filter((t) => t.actor_id === id).length,
      approvedAt: approval.approved_at,
    });
  }
  return agents;
}

/**
 * The person's decision on the page: approve or deny a pending request, revoke an approval. Whether it changed anything;
 * undefined for a decision the page does not offer.
 */
export async function decide(
  db: Database,
  personId: string,
  agentId: string,
  decision: string | undefined,
): Promise<boolean | undefined> {
  if (decision === 'approve') return approve(db, personId, agentId, personId);
  if (decision === 'deny') return deny(db, personId, agentId);
  if (decision === 'revoke') return revokeApproval(db, personId, agentId, 'user_initiated');
  return undefined;
}
