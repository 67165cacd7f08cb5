import { errors, type AccessToken, type Client, type TokenEndpointGrantContext } from 'oidc-provider';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import type { Database } from '../../kit/db.ts';
import type { ClientStore } from '../oidc/clients.ts';
import type { OrganizationTokens } from '../organizations/token-scope.ts';
import type { OidcProvider } from '../oidc/provider.ts';
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

export type Params = {
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
export const policyRefusal = (description: string) => new errors.CustomOIDCProviderError('invalid_grant', description);

const words = (v: unknown) =>
  String(v ?? '')
    .split(' ')
    .filter(Boolean);
const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? [v] : []);
const audienceOf = (aud: unknown): string[] => listOf(aud);

/** A live access token of this service: unexpired, unrevoked, its app and principals active, its delegation unbroken. */
export async function liveAccessToken(
  provider: OidcProvider,
  deps: Pick<DelegationDeps, 'db' | 'accounts' | 'clients'>,
  value: string,
): Promise<AccessToken | undefined> {
  const token = await provider.AccessToken.find(value);
  if (!token || token.isExpired || !token.accountId) return undefined;
  if (!(await deps.clients.app(token.clientId!))?.active) return undefined;
  if (!(await deps.accounts.find(token.accountId))?.active) return undefined;
  if (token.grantId && !(await provider.Grant.find(token.grantId))) return undefined;
  return (await delegationLive(deps.db, deps.accounts, token)) ? token : undefined;
}

/** The agent an access token proves as the actor token: issued to it for itself; and the key it is bound to, if any. */
export async function actorOfToken(
  provider: OidcProvider,
  deps: Pick<DelegationDeps, 'db' | 'accounts' | 'clients'>,
  actorToken: string,
): Promise<{ agentId: string; boundTo: string | undefined }> {
  const own = await liveAccessToken(provider, deps, actorToken);
  if (!own) throw new errors.InvalidGrant('the actor token is invalid, expired or revoked');
  if (delegationOf(own))
    throw policyRefusal("the actor token must be the agent's own token, not one it holds for someone");
  return { agentId: own.accountId!, boundTo: own.jkt };
}

/** The principal the actor token proved, when it is an active agent. */
export async function activeAgent(deps: Pick<DelegationDeps, 'accounts'>, agentId: string): Promise<PrincipalView> {
  const agent = await deps.accounts.find(agentId);
  if (!agent?.active || !agent.agent) throw policyRefusal('the actor token does not prove an active agent');
  return agent;
}

/** The agent the actor token proves: a signed assertion of one of its keys, or an access token issued to it for itself. */
async function actorOf(
  ctx: DelegationContext,
  deps: DelegationDeps,
): Promise<{ agent: PrincipalView; boundTo: string | undefined }> {
  const actorToken = ctx.oidc.params.actor_token!;
  const { agentId, boundTo } =
    ctx.oidc.params.actor_token_type === JWT_TOKEN_TYPE
      ? { agentId: await deps.verifyActorAssertion(actorToken, ctx.ip), boundTo: undefined }
      : await actorOfToken(ctx.oidc.provider, deps, actorToken);
  return { agent: await activeAgent(deps, agentId), boundTo };
}

/** What either path (the provider's endpoint, or the fast route: fast-exchange.ts) reads of the request. */
export interface ExchangeRequest {
  provider: OidcProvider;
  params: Params;
  /** The authenticated app. */
  client: Client;
  ip: string | undefined;
}

/** What the exchange has learnt by the time its policy is checked. */
export interface Exchange {
  req: ExchangeRequest;
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
  const { subject, parentChain, root } = await subjectOf(ctx.oidc.provider, deps, params.subject_token!);
  const { agent, boundTo } = await actorOf(ctx, deps);
  const chain = [...parentChain, agent.id];
  const record = { principalId: root.id, actorId: agent.id, chain, clientId: client.clientId, clientIp: ctx.ip };
  let scopes: string[] = [];
  let audience: string[] = [];
  // Set once the issuing statement (which records the exchange itself) has run, so a failure after it is not recorded twice.
  let recorded = false;
  try {
    const a = agent.agent!;
    const req: ExchangeRequest = { provider: ctx.oidc.provider, params, client, ip: ctx.ip };
    const x: Exchange = { req, subject, root, agent, boundTo, parentChain, chain, policy: agentPolicy(a) };
    const dPoP = await validateDpop(ctx.oidc.provider, ctx);
    checkBindings(x, dPoP?.thumbprint);
    // The delegated token stays in the subject's organization (the person's membership keeps it alive); naming another is refused.
    await deps.organizations.decide(ctx, root.id, subject, { refuse: policyRefusal, source: 'the subject token' });
    await checkChain(deps, x);
    scopes = grantedScopes(deps, x);
    audience = grantedAudience(x);
    // A proof, when sent, binds the new token to its key; an agent (or app) that must use DPoP is refused without one.
    if (!dPoP && (a.dpopRequired || client.dpopBoundAccessTokens))
      throw new errors.InvalidGrant('DPoP proof JWT not provided');
    await checkApproval(deps, x, scopes);
    const issued = await saveDelegated(ctx, deps, x, scopes, audience, dPoP);
    recorded = true;
    ctx.body = await linkDelegated(deps, issued, { ...record, scopes, audience, outcome: 'issued' });
  } catch (err) {
    const code = (err as { error?: unknown }).error;
    if (typeof code === 'string' && !recorded)
      await recordExchange(deps.db, { ...record, scopes, audience, outcome: 'refused', error: code });
    throw err;
  }
}

/** The subject token, live, and the person its chain starts from. */
export async function subjectOf(
  provider: OidcProvider,
  deps: Pick<DelegationDeps, 'db' | 'accounts' | 'clients'>,
  subjectToken: string,
): Promise<{ subject: AccessToken & { accountId: string }; parentChain: string[]; root: PrincipalView }> {
  const subject = await liveAccessToken(provider, deps, subjectToken);
  if (!subject) throw new errors.InvalidGrant('the subject token is invalid, expired or revoked');
  const parentChain = delegationOf(subject)?.chain ?? [subject.accountId!];
  const root = await deps.accounts.find(parentChain[0]);
  if (root?.type !== 'human') throw policyRefusal('the subject token must act for a person');
  return { subject: subject as AccessToken & { accountId: string }, parentChain, root };
}

/** Missing or malformed parameters first (invalid_request), before any token is looked at. */
export function checkParams(params: Params): void {
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
 * cannot be presented together. `thumbprint`: the key of the request's proof, if any.
 */
export function checkBindings({ subject, boundTo }: Exchange, thumbprint: string | undefined): void {
  if (subject.jkt && boundTo && subject.jkt !== boundTo) {
    throw policyRefusal(
      'the subject token and the actor token are DPoP-bound to different keys: one DPoP proof cannot prove both',
    );
  }
  if (subject.jkt && thumbprint !== subject.jkt)
    throw policyRefusal('the subject token is DPoP-bound: the request needs a DPoP proof by its key');
  // An actor token bound to a key proves the agent only with a proof by that key (otherwise a stolen bound token would do).
  if (boundTo && thumbprint !== boundTo)
    throw policyRefusal('the actor token is DPoP-bound: the request needs a DPoP proof by its key');
}

/** Further delegation, loops, the chain's depth, and whom the agent may act for (the organization is decided before). */
export async function checkChain(
  deps: Pick<DelegationDeps, 'accounts' | 'maxDepth'>,
  { root, agent, parentChain, chain }: Exchange,
) {
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
export function grantedScopes(
  deps: Pick<DelegationDeps, 'knownScopes'>,
  { req, subject, agent, policy }: Exchange,
): string[] {
  const params = req.params;
  const requested = words(params.scope);
  const unknown = requested.filter((s) => !deps.knownScopes.has(s));
  if (unknown.length) throw new errors.InvalidScope('requested scope is not known', unknown.join(' '));
  const granted = delegatedScopes({
    requested,
    subject: words(subject.scope),
    agentAllowed: agent.allowedScopes,
    policy,
    appAllowed: new Set(words(req.client.scope)),
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

export function grantedAudience({ req, subject, policy }: Exchange): string[] {
  const aud = delegatedAudience(listOf(req.params.audience), audienceOf(subject.aud), policy);
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
  ctx: DelegationContext,
  deps: DelegationDeps,
  x: Exchange,
  scopes: string[],
  audience: string[],
  dPoP: Awaited<ReturnType<typeof validateDpop>>,
): Promise<{ token: AccessToken; value: string; parentTokenId: string }> {
  const { token, parentTokenId } = await delegatedToken(deps, x, scopes, audience);
  if (dPoP) {
    await checkDpopReplay(ctx.oidc.provider, ctx, dPoP, x.req.client.clientId, errors.InvalidGrant);
    token.setThumbprint('jkt', dPoP.thumbprint);
  }
  ctx.oidc.entity('AccessToken', token);
  return { token, value: await token.save(), parentTokenId };
}

/**
 * The delegated token, not yet saved, with its delegation claims, and the subject's row (its parent): for the person, at
 * most the agent's lifetime and never past the subject's expiry.
 */
export async function delegatedToken(
  deps: Pick<DelegationDeps, 'writes'>,
  { req, root, agent, chain, subject }: Exchange,
  scopes: string[],
  audience: string[],
): Promise<{ token: AccessToken; parentTokenId: string }> {
  const remaining = Math.floor(subject.exp! - Date.now() / 1000);
  if (remaining < 1) throw new errors.InvalidGrant('the subject token is expired');
  const parentTokenId = await deps.writes.tokenRowId(req.params.subject_token!);
  if (!parentTokenId) throw new errors.InvalidGrant('the subject token is invalid, expired or revoked');

  // No grant stands behind a delegated token (the person's approval and the subject token are its authority): the type
  // declarations require a grantId the provider itself does not.
  type AccessTokenInit = ConstructorParameters<typeof req.provider.AccessToken>[0];
  const token = new req.provider.AccessToken({
    client: req.client,
    accountId: root.id,
    scope: scopes.join(' '),
    gty: 'token_exchange',
    expiresIn: Math.min(agent.agent!.maxTokenLifetime, remaining),
    ...(audience.length ? { aud: audience.length === 1 ? audience[0] : audience } : {}),
  } as unknown as AccessTokenInit);
  pendingClaims.set(token, { act: actClaim(chain), delegation_chain: chain, parent_token_id: parentTokenId });
  return { token, parentTokenId };
}

/** The saved token linked to its chain and the exchange recorded; the token response, or InvalidGrant when the subject was revoked meanwhile. */
export async function linkDelegated(
  deps: Pick<DelegationDeps, 'writes'>,
  { token, value, parentTokenId }: { token: AccessToken; value: string; parentTokenId: string },
  record: Omit<ExchangeRecord, 'parentTokenId'>,
): Promise<Record<string, unknown>> {
  const tokenId = await deps.writes.linkAndRecord(value, {
    ...record,
    parentTokenId,
    expiresAt: new Date(Date.now() + token.expiration * 1000),
  });
  if (!tokenId) throw new errors.InvalidGrant('the subject token was revoked');
  return {
    access_token: value,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: token.tokenType,
    expires_in: token.expiration,
    scope: token.scope,
  };
}
