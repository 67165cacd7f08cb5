import type { AgentRecord } from '../principals/view.ts';

/**
 * What an agent's free-form constraint objects mean to delegation (Document 2 leaves their shape open):
 * - `capability_constraints.scopes`: the scopes the agent may ever hold for someone (absent: no further limit);
 * - `capability_constraints.can_delegate`: whether a token the agent holds may be exchanged again by a sub-agent (default false);
 * - `resource_constraints.audiences`: the audiences (resource servers) its tokens may name (absent: any).
 */
export interface AgentPolicy {
  scopes: ReadonlySet<string> | undefined;
  canDelegate: boolean;
  audiences: readonly string[] | undefined;
}

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.length > 0) : undefined;

export function agentPolicy(agent: AgentRecord): AgentPolicy {
  const scopes = stringList(agent.capabilityConstraints.scopes);
  return {
    scopes: scopes ? new Set(scopes) : undefined,
    canDelegate: agent.capabilityConstraints.can_delegate === true,
    audiences: stringList(agent.resourceConstraints.audiences),
  };
}

/** Scopes about a person's sign-in: a delegated token is not a sign-in. */
const SESSION_SCOPES = new Set(['openid', 'offline_access']);

/**
 * The scopes a delegated token may carry: held by the subject token, allowed to the agent (allowed_scopes and
 * capability_constraints) and to the app making the request. Without a request, all of them; with one, the request
 * must stay inside them (the rest is reported as refused).
 */
export function delegatedScopes(input: {
  requested: readonly string[];
  subject: readonly string[];
  agentAllowed: readonly string[];
  policy: AgentPolicy;
  appAllowed: ReadonlySet<string>;
}): { scopes: string[]; refused: string[] } {
  const agentAllowed = new Set(input.agentAllowed);
  const permitted = (s: string) =>
    !SESSION_SCOPES.has(s) &&
    input.subject.includes(s) &&
    agentAllowed.has(s) &&
    (input.policy.scopes?.has(s) ?? true) &&
    input.appAllowed.has(s);
  if (input.requested.length) {
    const wanted = [...new Set(input.requested)];
    return { scopes: wanted.filter(permitted), refused: wanted.filter((s) => !permitted(s)) };
  }
  return { scopes: input.subject.filter(permitted), refused: [] };
}

/**
 * The audience of a delegated token: requested values must be within the agent's `audiences` and within the subject
 * token's own audience when it has one. Without a request the token inherits the subject's audience, narrowed to the
 * agent's list (or the agent's list itself when the subject names none).
 */
export function delegatedAudience(
  requested: readonly string[],
  subject: readonly string[],
  policy: AgentPolicy,
): { audience: string[]; refused: string[] } {
  const within = (a: string) =>
    (subject.length === 0 || subject.includes(a)) && (policy.audiences === undefined || policy.audiences.includes(a));
  if (requested.length) {
    const wanted = [...new Set(requested)];
    return { audience: wanted.filter(within), refused: wanted.filter((a) => !within(a)) };
  }
  if (subject.length)
    return { audience: subject.filter(within), refused: subject.length && !subject.some(within) ? [...subject] : [] };
  return { audience: [...(policy.audiences ?? [])], refused: [] };
}

/** The RFC 8693 section 4.1 `act` claim for a chain [person, agent1, …, agentN]: the current actor outermost, each prior actor nested. */
export function actClaim(chain: readonly string[]): Record<string, unknown> | undefined {
  let act: Record<string, unknown> | undefined;
  for (const sub of chain.slice(1)) act = act ? { sub, act } : { sub };
  return act;
}
