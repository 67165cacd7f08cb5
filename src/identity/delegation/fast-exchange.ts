/**
 * The delegation exchange (RFC 8693 with an actor token, exchange.ts) answered outside the provider's Koa stack, as the
 * credential grants are (credentials/fast-grants.ts), for the same reason: the provider's request path (its router, body
 * parsing, client authentication, hooks) was about half of what a delegated token cost (issue 33's profile).
 *
 * The checks are exchange.ts's own steps, in its order: parameters, subject, actor, proofs of possession, the chain,
 * scopes and audience, DPoP required, the person's approval. The fast route takes only a request none of them refuses
 * and which needs nothing of the provider's request: an app fastCaller takes (HTTP Basic, confidential, not bound to
 * DPoP), no DPoP proof, no organization (neither asked for nor carried by the subject token), exactly the exchange's
 * parameters, and an answer the provider would give as JSON. Anything else — every refusal included — goes to the
 * provider before anything is written, so the provider's path refuses it and records the refusal as it always has.
 *
 * Written before that decision: a secret's last-use time (at most once a minute) and, for an agent that needs the
 * person's approval, the approval's last use (approvedFor, as the provider's path notes it). An actor assertion's jti is
 * spent last, just before the token is saved: when it was spent before, the provider refuses the replay. Once the token
 * is saved nothing is handed over: a subject revoked meanwhile (its link refused, the exchange recorded as refused) or a
 * failure is answered here as the provider's error handler answers it.
 */
import type { ParsedUrlQuery } from 'node:querystring';
import { errors, type AccessToken } from 'oidc-provider';
import type { ClientStore } from '../oidc/clients.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../kit/app.ts';
import { fastCaller, fastRouteOrigin, FastRefusal, requestedScopes, type FastRequest } from '../oidc/fast-route.ts';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from '../oidc/protocol.ts';
import { boundOrganization } from '../organizations/token-scope.ts';
import type { CredentialLookup } from '../credentials/lookup.ts';
import { spendAssertion, verifyAssertion } from '../credentials/grants.ts';
import { noteCredentialUse } from '../credentials/store.ts';
import { agentPolicy } from './policy.ts';
import { approvedFor } from './store.ts';
import type { ExchangeWrites } from './exchange-writes.ts';
import {
  activeAgent,
  actorOfToken,
  checkBindings,
  checkChain,
  checkParams,
  delegatedToken,
  grantedAudience,
  grantedScopes,
  JWT_TOKEN_TYPE,
  linkDelegated,
  subjectOf,
  type Exchange,
  type Params,
} from './exchange.ts';

export interface FastDelegationDeps {
  holder: ProviderHolder;
  db: Database;
  accounts: PrincipalDirectory;
  clients: ClientStore;
  /** The provider's grant's own (assembly/grants.ts), so both paths' lookups and links batch together. */
  writes: ExchangeWrites;
  /** Every scope the service knows (built-in and IDENTITY_EXTRA_SCOPES). */
  knownScopes: ReadonlySet<string>;
  maxDepth: number;
  /** An actor assertion's key and jti (credentials/grants.ts), and its accepted audiences. */
  credentials: CredentialLookup;
  issuer: string;
  tokenEndpoint: string;
  /** Counts the issued token as the provider's grant.success does (identity_token_requests_total). */
  onIssued(grantType: string): void;
}

/** The exchange's parameters (exchange.ts, DELEGATION_PARAMS); `audience` alone may repeat, as the provider allows. */
const PARAMS = new Set([
  'grant_type',
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'scope',
  'audience',
  'requested_token_type',
]);

/** The parameters as the provider's grant reads them, or undefined when any is unknown, repeated or empty. */
function exchangeParams(params: ParsedUrlQuery): Params | undefined {
  for (const [key, value] of Object.entries(params)) {
    if (!PARAMS.has(key)) return undefined;
    if (Array.isArray(value) ? key !== 'audience' || value.some((v) => !v) : !value) return undefined;
  }
  return params as Params;
}

/**
 * The provider's error handler answers JSON when the request accepts it before HTML (Koa's `accepts`): the fast route
 * takes only the requests whose answer is JSON plainly, so that its own refusals (after the save) are the provider's.
 */
const JSON_ACCEPT = /^\s*(\*\/\*|application\/json)\s*$/i;

/**
 * What the provider answers for an error thrown once the token is saved: its error handler's answer, and for a database
 * outage the service's 503 (oidc/provider.ts, databaseOutageIsTemporary), which also logs any other server error.
 */
function refusalOf(request: FastRequest, err: unknown): FastRefusal {
  if (err instanceof errors.OIDCProviderError && err.expose)
    return new FastRefusal(err.statusCode, err.message, err.error_description ?? '');
  if (isDatabaseUnavailable(err))
    return new FastRefusal(503, 'temporarily_unavailable', 'the database is unavailable; retry later', {
      'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS),
    });
  request.log.error({ reqId: request.id, err }, 'oidc provider error');
  return new FastRefusal(500, 'server_error', 'oops! something went wrong');
}

/** A delegated token for an agent, or undefined to leave the request to the provider (exchange.ts, exchangeForAgent). */
export async function issueForAgent(
  deps: FastDelegationDeps,
  request: FastRequest,
  query: ParsedUrlQuery,
): Promise<Record<string, unknown> | FastRefusal | undefined> {
  if (query.grant_type !== TOKEN_EXCHANGE) return undefined;
  const params = exchangeParams(query);
  if (!params || params.subject_token_type !== ACCESS_TOKEN_TYPE) return undefined;
  const accept = request.headers.accept;
  if (accept !== undefined && !JSON_ACCEPT.test(accept)) return undefined;
  // Refused parameters (the provider's invalid_request) are its to answer.
  if (!params.subject_token || !requestedScopes(params.scope)) return undefined;
  try {
    checkParams(params);
  } catch {
    return undefined;
  }
  const caller = await fastCaller(deps.clients, request);
  if (!caller) return undefined;
  const provider = deps.holder.current;
  const client = await provider.Client.find(caller.clientId);
  if (!client) return undefined;

  const decided = await decide(deps, request, params, client);
  if (!decided) return undefined;
  const { x, scopes, audience, spend } = decided;
  const { token, parentTokenId } = decided.issuing;
  // The last check, with the token about to be saved: a jti spent meanwhile is the provider's to refuse.
  if (!(await spend())) return undefined;

  const userAgent = request.headers['user-agent']?.slice(0, 512) || undefined;
  const record = {
    principalId: x.root.id,
    actorId: x.agent.id,
    chain: x.chain,
    clientId: client.clientId,
    clientIp: request.ip,
    scopes,
    audience,
    outcome: 'issued' as const,
  };
  try {
    const value = await fastRouteOrigin.run({ ip: request.ip, userAgent }, () => token.save());
    const answer = await linkDelegated(deps, { token, value, parentTokenId }, record);
    deps.onIssued(TOKEN_EXCHANGE);
    return answer;
  } catch (err) {
    // Saved: no longer the provider's to answer. The refused link was recorded with it (exchange-writes.ts).
    return refusalOf(request, err);
  }
}

/**
 * Every check of exchange.ts the request passes, in its order, with what they decided; undefined as soon as one would
 * refuse (or the request needs the provider). Nothing is written but an approval's last use.
 */
async function decide(
  deps: FastDelegationDeps,
  request: FastRequest,
  params: Params,
  client: Exchange['req']['client'],
): Promise<
  | {
      x: Exchange;
      scopes: string[];
      audience: string[];
      issuing: { token: AccessToken; parentTokenId: string };
      spend(): Promise<boolean>;
    }
  | undefined
> {
  const provider = deps.holder.current;
  try {
    // Both tokens looked up at once (one query of the token lookup's between them): which refusal comes first does not
    // matter here, as any refusal is the provider's to make, in its order.
    const [{ subject, parentChain, root }, { agentId, boundTo, spend }] = await Promise.all([
      subjectOf(provider, deps, params.subject_token!),
      actorOf(deps, provider, params, request.ip),
    ]);
    // The organization is the provider's to decide (organizations/token-scope.ts reads it from its request).
    if (boundOrganization(subject)) return undefined;
    const agent = await activeAgent(deps, agentId);
    const a = agent.agent!;
    const x: Exchange = {
      req: { provider, params, client, ip: request.ip },
      subject,
      root,
      agent,
      boundTo,
      parentChain,
      chain: [...parentChain, agent.id],
      policy: agentPolicy(a),
    };
    // No DPoP proof here (needsProvider): a bound subject or actor token, or an agent that must use DPoP, is refused.
    checkBindings(x, undefined);
    if (a.dpopRequired || client.dpopBoundAccessTokens) return undefined;
    await checkChain(deps, x);
    const scopes = grantedScopes(deps, x);
    const audience = grantedAudience(x);
    if (a.requiresConfirmation && !(await approvedFor(deps.db, root.id, agent.id, scopes))) return undefined;
    return { x, scopes, audience, issuing: await delegatedToken(deps, x, scopes, audience), spend };
  } catch {
    return undefined;
  }
}

/** The agent the actor token proves, as exchange.ts's actorOf, but an assertion's jti left unspent until `spend`. */
async function actorOf(
  deps: FastDelegationDeps,
  provider: FastDelegationDeps['holder']['current'],
  params: Params,
  ip: string | undefined,
): Promise<{ agentId: string; boundTo: string | undefined; spend(): Promise<boolean> }> {
  if (params.actor_token_type !== JWT_TOKEN_TYPE)
    return { ...(await actorOfToken(provider, deps, params.actor_token!)), spend: async () => true };
  const { credential, payload } = await verifyAssertion(deps, params.actor_token!);
  return {
    agentId: credential.principalId,
    boundTo: undefined,
    spend: async () => {
      if (!(await spendAssertion(deps.credentials, credential, payload))) return false;
      await noteCredentialUse(deps.db, credential.id, ip);
      return true;
    },
  };
}
