import { errors, type AccessToken, type TokenEndpointGrantContext } from 'oidc-provider';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import type { Database } from '../../kit/db.ts';
import type { ClientStore } from '../oidc/clients.ts';
import type { OrganizationTokens } from '../organizations/token-scope.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import { actClaim, agentPolicy, delegatedAudience, delegatedScopes, type AgentPolicy } from './policy.ts';
import { delegationOf, delegationLive } from './entitlement.ts';
import { approvedFor, recordExchange, requestApproval, type ExchangeRecord } from './store.ts';
import type { ExchangeWrites } from './exchange-writes.ts';
import { ACCESS_TOKEN_TYPE } from '../oidc/protocol.ts';

/** RFC 8693 section 3: a JWT; here an assertion signed with one of the agent's registered keys (as for RFC 7523). */
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
/** The parameters the exchange reads besides the API-key ones (registered with the grant so the provider keeps them). */
export const DELEGATION_PARAMS = ['actor_token', 'actor_token_type', 'audience', 'requested_token_type'] as const;

export interface DelegationDeps {
  db: Database;
  accounts: PrincipalDirectory;
  clients: ClientStore;
  /** The subject token's organization carries over to the delegated token (organizations/token-scope.ts). */
  organizations: OrganizationTokens;
  /** The subject's row id and the issued token's link, many per statement. */
  writes: ExchangeWrites;
  knownScopes: ReadonlySet<string>;
  maxDepth: number;
  /** Where the person approves agents, named in the access_denied description. */
  approvalPage: string;
  /** Verifies an agent's signed assertion (kid, iss = sub = its id, aud, exp, a jti not yet spent) and answers its principal id. */
  verifyActorAssertion(assertion: string, ip: string | undefined): Promise<string>;
}

type Params = {
  subject_token?: string;
  subject_token_type?: string;
  actor_token?: string;
  actor_token_type?: string;
  scope?: string;
  audience?: string | string[];
  requested_token_type?: string;
};
export type DelegationContext = TokenEndpointGrantContext<Params>;

/** The delegation claims a token is saved with, read by the provider's extraTokenClaims (they land in its `extra`, shown by introspection). */
const pendingClaims = new WeakMap<object, Record<string, unknown>>();
export function delegationClaims(token: object): Record<string, unknown> | undefined {
  return pendingClaims.get(token);
}

/**
 * invalid_grant with its description shown: the provider's own InvalidGrant always answers "grant request is invalid",
 * which is right for a bad token but leaves an agent guessing why its policy refused it.
 */
const policyRefusal = (description: string) => new errors.CustomOIDCProviderError('invalid_grant', description);

const words = (v: unknown) =>
  String(v ?? '')
    .split(' ')
    .filter(Boolean);
const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? [v] : []);
const audienceOf = (aud: unknown): string[] => listOf(aud);

/** A live access token of this service: unexpired, unrevoked, its app and principals active, its delegation unbroken. */
async function liveAccessToken(
  ctx: DelegationContext,
  deps: DelegationDeps,
  value: string,
): Promise<AccessToken | undefined> {
  const token = await ctx.oidc.provider.AccessToken.find(value);
  if (!token || token.isExpired || !token.accountId) return undefined;
  if (!(await deps.clients.app(token.clientId!))?.active) return undefined;
  if (!(await deps.accounts.find(token.accountId))?.active) return undefined;
  if (token.grantId && !(await ctx.oidc.provider.Grant.find(token.grantId))) return undefined;
  return (await delegationLive(deps.db, deps.accounts, token)) ? token : undefined;
}

/** The agent the actor token proves: a signed assertion of one of its keys, or an access token issued to it for itself. */
async function actorOf(
  ctx: DelegationContext,
  deps: DelegationDeps,
): Promise<{ agent: PrincipalView; boundTo: string | undefined }> {
  const actorToken = ctx.oidc.params.actor_token!;
  const actorType = ctx.oidc.params.actor_token_type;
  let agentId: string;
  let boundTo: string | undefined;
  if (actorType === JWT_TOKEN_TYPE) {
    agentId = await deps.verifyActorAssertion(actorToken, ctx.ip);
  } else {
    const own = await liveAccessToken(ctx, deps, actorToken);
    if (!own) throw new errors.InvalidGrant('the actor token is invalid, expired or revoked');
    if (delegationOf(own))
      throw policyRefusal("the actor token must be the agent's own token, not one it holds for someone");
    agentId = own.accountId;
    boundTo = own.jkt;
  }
  const agent = await deps.accounts.find(agentId);
  if (!agent?.active || !agent.agent) throw policyRefusal('the actor token does not prove an active agent');
  return { agent, boundTo };
}

/** What the exchange has learnt by the time its policy is checked. */
interface Exchange {
  ctx: DelegationContext;
  subject: AccessToken & { accountId: string };
  /** The person the chain starts from. */
  root: PrincipalView;
  agent: PrincipalView;
  /** The agent's token, when the actor token was one; its key, when bound. */
  boundTo: string | undefined;
  /** The subject's chain (the person, then each agent that holds it) and the new one (the agent at its end). */
  parentChain: string[];
  chain: string[];
  policy: AgentPolicy;
}

/**
 * RFC 8693 delegation: an agent (proved by actor_token) obtains a token to act for the subject token's person, or for
 * the person behind the subject token's own agent (a sub-agent). Every attempt after the actor is known is recorded.
 * The checks run in order, each a named step: parameters, subject, actor, proofs of possession, the chain, scopes and
 * audience, DPoP required, the person's approval; then the token is issued and linked to its chain.
 */
export async function exchangeForAgent(ctx: DelegationContext, deps: DelegationDeps): Promise<void> {
  const params = ctx.oidc.params;
  const client = ctx.oidc.client!;
  checkParams(params);
  const subject = await liveAccessToken(ctx, deps, params.subject_token!);
  if (!subject) throw new errors.InvalidGrant('the subject token is invalid, expired or revoked');
  const parentChain = delegationOf(subject)?.chain ?? [subject.accountId];
  const root = await deps.accounts.find(parentChain[0]);
  if (root?.type !== 'human') throw policyRefusal('the subject token must act for a person');
  const { agent, boundTo } = await actorOf(ctx, deps);
  const chain = [...parentChain, agent.id];
  const record = { principalId: root.id, actorId: agent.id, chain, clientId: client.clientId, clientIp: ctx.ip };
  let scopes: string[] = [];
  let audience: string[] = [];
  // Set once the issuing statement (which records the exchange itself) has run, so a failure after it is not recorded twice.
  let recorded = false;
  try {
    const a = agent.agent!;
    const x: Exchange = { ctx, subject, root, agent, boundTo, parentChain, chain, policy: agentPolicy(a) };
    const dPoP = await checkProofs(x);
    await checkChain(deps, x);
    scopes = grantedScopes(deps, x);
    audience = grantedAudience(x);
    // A proof, when sent, binds the new token to its key; an agent (or app) that must use DPoP is refused without one.
    if (!dPoP && (a.dpopRequired || client.dpopBoundAccessTokens))
      throw new errors.InvalidGrant('DPoP proof JWT not provided');
    await checkApproval(deps, x, scopes);
    const issued = await saveDelegated(deps, x, scopes, audience, dPoP);
    recorded = true;
    await linkAndAnswer(deps, x, issued, { ...record, scopes, audience, outcome: 'issued' });
  } catch (err) {
    const code = (err as { error?: unknown }).error;
    if (typeof code === 'string' && !recorded)
      await recordExchange(deps.db, { ...record, scopes, audience, outcome: 'refused', error: code });
    throw err;
  }
}

/** Missing or malformed parameters first (invalid_request), before any token is looked at. */
function checkParams(params: Params): void {
  if (!params.actor_token)
    throw new errors.InvalidRequest("missing required parameter actor_token (the agent's own proof)");
  if (params.actor_token_type !== JWT_TOKEN_TYPE && params.actor_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest(`actor_token_type must be ${JWT_TOKEN_TYPE} or ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
}

/**
 * A bound token is only usable with a proof by its key, the subject as much as the actor: otherwise a stolen DPoP-bound
 * person token could be handed to any agent. One DPoP header proves one key, so both tokens bound to different keys
 * cannot be presented together. The request's proof, if any.
 */
async function checkProofs({ ctx, subject, boundTo }: Exchange) {
  const dPoP = await validateDpop(ctx.oidc.provider, ctx);
  if (subject.jkt && boundTo && subject.jkt !== boundTo) {
    throw policyRefusal(
      'the subject token and the actor token are DPoP-bound to different keys: one DPoP proof cannot prove both',
    );
  }
  if (subject.jkt && dPoP?.thumbprint !== subject.jkt)
    throw policyRefusal('the subject token is DPoP-bound: the request needs a DPoP proof by its key');
  // An actor token bound to a key proves the agent only with a proof by that key (otherwise a stolen bound token would do).
  if (boundTo && dPoP?.thumbprint !== boundTo)
    throw policyRefusal('the actor token is DPoP-bound: the request needs a DPoP proof by its key');
  return dPoP;
}

/** The organization, further delegation, loops, the chain's depth, and whom the agent may act for. */
async function checkChain(deps: DelegationDeps, { ctx, subject, root, agent, parentChain, chain }: Exchange) {
  // The delegated token stays in the subject's organization (the person's membership keeps it alive); naming another is refused.
  await deps.organizations.decide(ctx, root.id, subject, { refuse: policyRefusal, source: 'the subject token' });
  if (parentChain.length > 1) {
    const holder = await deps.accounts.find(parentChain.at(-1));
    if (!holder?.agent || !agentPolicy(holder.agent).canDelegate)
      throw policyRefusal(
        'the agent holding the subject token may not delegate further (capability_constraints.can_delegate)',
      );
  }
  if (parentChain.includes(agent.id)) throw policyRefusal('the agent is already in this delegation chain');
  if (chain.length - 1 > deps.maxDepth)
    throw policyRefusal(`the delegation chain would hold more than ${deps.maxDepth} agents`);
  const delegating = agent.agent!.delegatingPrincipalId;
  if (delegating && delegating !== root.id)
    throw policyRefusal('this agent acts only for its own delegating principal');
}

/** The scopes asked for, within the subject token's, the agent's and the app's (policy.ts); all of them when none is asked. */
function grantedScopes(deps: DelegationDeps, { ctx, subject, agent, policy }: Exchange): string[] {
  const params = ctx.oidc.params;
  const requested = words(params.scope);
  const unknown = requested.filter((s) => !deps.knownScopes.has(s));
  if (unknown.length) throw new errors.InvalidScope('requested scope is not known', unknown.join(' '));
  const granted = delegatedScopes({
    requested,
    subject: words(subject.scope),
    agentAllowed: agent.allowedScopes,
    policy,
    appAllowed: new Set(words(ctx.oidc.client.scope)),
  });
  if (granted.refused.length)
    throw new errors.InvalidScope(
      "requested scope exceeds the subject token, the agent's allowed scopes and capabilities, or the app",
      granted.refused.join(' '),
    );
  if (!granted.scopes.length)
    throw new errors.InvalidScope(
      'no scope of the subject token is allowed to this agent and app',
      words(params.scope).join(' '),
    );
  return granted.scopes;
}

function grantedAudience({ ctx, subject, policy }: Exchange): string[] {
  const aud = delegatedAudience(listOf(ctx.oidc.params.audience), audienceOf(subject.aud), policy);
  if (aud.refused.length)
    throw new errors.InvalidTarget(
      `audience not allowed to this agent or outside the subject token's audience: ${aud.refused.join(' ')}`,
    );
  return aud.audience;
}

/** An agent that requires confirmation acts only with the person's approval of these scopes; else the request waits. */
async function checkApproval(deps: DelegationDeps, { root, agent }: Exchange, scopes: string[]): Promise<void> {
  if (!agent.agent!.requiresConfirmation || (await approvedFor(deps.db, root.id, agent.id, scopes))) return;
  await requestApproval(deps.db, root.id, agent.id, scopes);
  throw new errors.AccessDenied(
    `${root.identifier} has not approved this agent for ${scopes.join(' ')}; the request waits at ${deps.approvalPage}`,
  );
}

/** The delegated token, saved: for the person, at most the agent's lifetime and never past the subject's expiry. */
async function saveDelegated(
  deps: DelegationDeps,
  { ctx, root, agent, chain, subject }: Exchange,
  scopes: string[],
  audience: string[],
  dPoP: Awaited<ReturnType<typeof validateDpop>>,
): Promise<{ token: AccessToken; value: string; parentTokenId: string }> {
  const params = ctx.oidc.params;
  const client = ctx.oidc.client;
  const remaining = Math.floor(subject.exp! - Date.now() / 1000);
  if (remaining < 1) throw new errors.InvalidGrant('the subject token is expired');
  const parentTokenId = await deps.writes.tokenRowId(params.subject_token!);
  if (!parentTokenId) throw new errors.InvalidGrant('the subject token is invalid, expired or revoked');

  // No grant stands behind a delegated token (the person's approval and the subject token are its authority): the type
  // declarations require a grantId the provider itself does not.
  type AccessTokenInit = ConstructorParameters<typeof ctx.oidc.provider.AccessToken>[0];
  const token = new ctx.oidc.provider.AccessToken({
    client,
    accountId: root.id,
    scope: scopes.join(' '),
    gty: 'token_exchange',
    expiresIn: Math.min(agent.agent!.maxTokenLifetime, remaining),
    ...(audience.length ? { aud: audience.length === 1 ? audience[0] : audience } : {}),
  } as unknown as AccessTokenInit);
  if (dPoP) {
    await checkDpopReplay(ctx.oidc.provider, ctx, dPoP, client.clientId, errors.InvalidGrant);
    token.setThumbprint('jkt', dPoP.thumbprint);
  }
  pendingClaims.set(token, { act: actClaim(chain), delegation_chain: chain, parent_token_id: parentTokenId });
  ctx.oidc.entity('AccessToken', token);
  return { token, value: await token.save(), parentTokenId };
}

/** The issued token linked to its chain and the exchange recorded (refused if the subject was revoked meanwhile); the answer. */
async function linkAndAnswer(
  deps: DelegationDeps,
  { ctx }: Exchange,
  { token, value, parentTokenId }: { token: AccessToken; value: string; parentTokenId: string },
  record: Omit<ExchangeRecord, 'parentTokenId'>,
): Promise<void> {
  const tokenId = await deps.writes.linkAndRecord(value, {
    ...record,
    parentTokenId,
    expiresAt: new Date(Date.now() + token.expiration * 1000),
  });
  if (!tokenId) throw new errors.InvalidGrant('the subject token was revoked');
  ctx.body = {
    access_token: value,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: token.tokenType,
    expires_in: token.expiration,
    scope: token.scope,
  };
}
