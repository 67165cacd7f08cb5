import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { Approval } from './store.ts';

/** One agent acting, or asking to act, for one person: who, which agent, the approval and what it holds now. */
export interface Delegation {
  person: { id: string; display_name: string; email: string | null; active: boolean };
  agent: {
    id: string;
    display_name: string;
    identifier: string;
    model_id: string;
    version: string | null;
    requires_confirmation: boolean;
    active: boolean;
  };
  approval: Omit<Approval, 'id' | 'principal_id' | 'agent_id' | 'created_at'> | null;
  live_tokens: number;
}

export type DelegationStatus = Approval['status'] | 'none';

export interface DelegationFilter {
  status?: DelegationStatus | undefined;
  /** Part of the person's name or email, or of the agent's name, identifier or model (any case). */
  text?: string | undefined;
  personId?: string | undefined;
  after?: readonly [string, string] | undefined;
  limit: number;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Every (person, agent) pair the platform knows: an approval or a pending request (agent_approvals), or an agent bound
 * to a person (`delegating_principal_id`) that has none yet (`approval: null`; with `requires_confirmation` false it
 * acts without one). In (person id, agent id) order, with the count of live tokens the agent holds for the person.
 */
export async function listDelegations(db: Queryable, f: DelegationFilter): Promise<Delegation[]> {
  const r = await db.query<Delegation & { person_id: string; agent_id: string }>(
    `WITH pairs AS (
       SELECT principal_id AS person_id, agent_id FROM agent_approvals
       UNION SELECT delegating_principal_id, principal_id FROM agents WHERE delegating_principal_id IS NOT NULL
     ), shown AS (
       SELECT pairs.person_id, pairs.agent_id, a.id, a.scopes, a.pending_scopes, a.requested_at, a.approved_at,
              a.denied_at, a.revoked_at, a.revoked_reason, a.last_used_at,
              CASE WHEN a.id IS NULL THEN 'none'
                   WHEN jsonb_array_length(a.pending_scopes) > 0 THEN 'pending'
                   WHEN jsonb_array_length(a.scopes) > 0 THEN 'approved'
                   WHEN a.revoked_at IS NOT NULL THEN 'revoked' ELSE 'denied' END AS status
         FROM pairs LEFT JOIN agent_approvals a ON a.principal_id = pairs.person_id AND a.agent_id = pairs.agent_id
     )
     SELECT s.person_id, s.agent_id,
            jsonb_build_object('id', pp.id, 'display_name', pp.display_name, 'email', h.email, 'active', pp.active) AS person,
            jsonb_build_object('id', ap.id, 'display_name', ap.display_name, 'identifier', ap.identifier,
                               'model_id', ag.model_id, 'version', ag.version,
                               'requires_confirmation', ag.requires_confirmation, 'active', ap.active) AS agent,
            CASE WHEN s.id IS NULL THEN NULL ELSE jsonb_build_object(
              'status', s.status, 'scopes', s.scopes, 'pending_scopes', s.pending_scopes,
              'requested_at', ${isoUtc('s.requested_at')}, 'approved_at', ${isoUtc('s.approved_at')},
              'denied_at', ${isoUtc('s.denied_at')}, 'revoked_at', ${isoUtc('s.revoked_at')},
              'revoked_reason', s.revoked_reason, 'last_used_at', ${isoUtc('s.last_used_at')}) END AS approval,
            (SELECT count(*)::int FROM oauth_tokens t
              WHERE t.principal_id = s.person_id AND t.delegation_chain IS NOT NULL AND NOT t.revoked
                AND t.access_expires_at > now() AND t.delegation_chain ? s.agent_id::text) AS live_tokens
       FROM shown s
       JOIN principals pp ON pp.id = s.person_id
       LEFT JOIN humans h ON h.principal_id = s.person_id
       JOIN principals ap ON ap.id = s.agent_id
       JOIN agents ag ON ag.principal_id = s.agent_id
      WHERE ($1::text IS NULL OR s.status = $1)
        AND ($2::uuid IS NULL OR s.person_id = $2)
        AND ($3::text IS NULL OR pp.display_name ILIKE $3 OR h.email ILIKE $3 OR ap.display_name ILIKE $3
             OR ap.identifier ILIKE $3 OR ag.model_id ILIKE $3)
        AND ($4::uuid IS NULL OR (s.person_id, s.agent_id) > ($4::uuid, $5::uuid))
      ORDER BY s.person_id, s.agent_id LIMIT $6`,
    [
      f.status ?? null,
      f.personId ?? null,
      f.text ? like(f.text) : null,
      f.after?.[0] ?? null,
      f.after?.[1] ?? null,
      f.limit,
    ],
  );
  return r.rows;
}
