import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { errors, type TokenEndpointGrantContext } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { ORGANIZATION_PARAM, type OrganizationTokens } from '../organizations/token-scope.ts';
import { noteCredentialUse, type UsableCredential } from './store.ts';
import type { CredentialLookup } from './lookup.ts';
import { publicKeyOf } from './public-keys.ts';
import { ACCESS_TOKEN_TYPE, JWT_BEARER } from '../oidc/protocol.ts';
import type { GrantPlugin, SubjectHandler } from '../oidc/grants.ts';

/** The longest an assertion may live (exp - now), so its jti need only be remembered that long. */
const MAX_ASSERTION_SECONDS = 300;
const CLOCK_SKEW_SECONDS = 30;
/** Scopes about a person's sign-in, meaningless for a token a credential obtains. */
const SESSION_SCOPES = new Set(['openid', 'offline_access']);

export interface CredentialGrantDeps {
  db: Database;
  accounts: PrincipalDirectory;
  knownScopes: ReadonlySet<string>;
  issuer: string;
  tokenEndpoint: string;
  organizations: OrganizationTokens;
  /** API keys, key pairs and spent jtis, read and written many per statement. */
  credentials: CredentialLookup;
}

type GrantContext = TokenEndpointGrantContext<{
  subject_token?: string;
  subject_token_type?: string;
  assertion?: string;
}>;

/**
 * The scopes of a token a credential obtains. Requested scopes must be known, allowed to the app (`appScope`, its
 * space-separated list), to the principal, and to the credential when it names scopes; without `scope`, the token gets
 * every scope all three allow. `refused` lists the requested scopes that are not.
 */
export function credentialScopes(
  knownScopes: ReadonlySet<string>,
  appScope: string,
  principal: { allowedScopes: readonly string[] },
  credential: UsableCredential,
  scope: string,
): { scopes: string[]; refused: string[] } {
  const appAllowed = new Set(appScope.split(' ').filter(Boolean));
  const permitted = (s: string) =>
    !SESSION_SCOPES.has(s) &&
    knownScopes.has(s) &&
    appAllowed.has(s) &&
    principal.allowedScopes.includes(s) &&
    (credential.scopes.length === 0 || credential.scopes.includes(s));
  const requested = scope.split(' ').filter(Boolean);
  const refused = requested.filter((s) => !permitted(s));
  return { scopes: requested.length ? requested : principal.allowedScopes.filter(permitted), refused };
}

/** Issues an access token for the credential's principal to the authenticated app, with the scopes of credentialScopes. */
async function issue(
  ctx: GrantContext,
  deps: CredentialGrantDeps,
  credential: UsableCredential,
  exchange: boolean,
): Promise<void> {
  const principal = await deps.accounts.find(credential.principalId);
  if (!principal?.active) throw new errors.InvalidGrant('the principal of this credential is deactivated');
  // An application's key authenticates that application as a client (private_key_jwt); it grants no token of its own.
  if (principal.type === 'application')
    throw new errors.InvalidGrant(
      "an application's key authenticates it as a client (client_assertion), not as a grant",
    );
  const client = ctx.oidc.client;
  // These grants issue bearer tokens only (the provider's DPoP binding is internal to its own grants): an app that must use DPoP is refused rather than given an unbound token.
  if (client.dpopBoundAccessTokens)
    throw new errors.InvalidGrant(
      'this app requires DPoP-bound tokens, which API-key and key-pair grants do not issue',
    );
  const { scopes, refused } = credentialScopes(
    deps.knownScopes,
    String(client.scope ?? ''),
    principal,
    credential,
    String(ctx.oidc.params.scope ?? ''),
  );
  if (refused.length)
    throw new errors.InvalidScope(
      'requested scope is not allowed to this app, principal or credential',
      refused.join(' '),
    );
  // `organization`: the principal must be an active member (invalid_grant otherwise); the token then carries org_id.
  await deps.organizations.decide(ctx, principal.id);

  // No grant stands behind these tokens (the credential is the authorization): the type declarations require a grantId the
  // provider itself does not (only userinfo reads it, and these tokens carry no openid scope).
  type AccessTokenInit = ConstructorParameters<typeof ctx.oidc.provider.AccessToken>[0];
  const init = {
    client,
    accountId: principal.id,
    scope: scopes.join(' ') || undefined,
    gty: exchange ? 'token_exchange' : 'jwt_bearer',
  };
  const token = new ctx.oidc.provider.AccessToken(init as AccessTokenInit);
  ctx.oidc.entity('AccessToken', token);
  const value = await token.save();
  await noteCredentialUse(deps.db, credential.id, ctx.ip);
  ctx.body = {
    access_token: value,
    token_type: 'Bearer',
    expires_in: token.expiration,
    ...(token.scope ? { scope: token.scope } : {}),
    ...(exchange ? { issued_token_type: ACCESS_TOKEN_TYPE } : {}),
  };
}

/** A signed assertion's key and claims checked (not its jti): its credential and payload, or InvalidGrant saying why not. */
export async function verifyAssertion(
  deps: Pick<CredentialGrantDeps, 'credentials' | 'issuer' | 'tokenEndpoint'>,
  assertion: string,
): Promise<{ credential: UsableCredential; payload: JWTPayload }> {
  let kid: unknown;
  let alg: unknown;
  try {
    ({ kid, alg } = decodeProtectedHeader(assertion));
  } catch {
    throw new errors.InvalidGrant('the assertion is not a JWT');
  }
  if (typeof kid !== 'string' || !kid) throw new errors.InvalidGrant('the assertion header must name the key (kid)');
  const credential = await deps.credentials.keypair(kid);
  if (!credential?.publicKey || !credential.keyAlgorithm)
    throw new errors.InvalidGrant('no live key has this kid (unknown, expired or revoked)');
  if (alg !== credential.keyAlgorithm)
    throw new errors.InvalidGrant(`the key ${kid} signs with ${credential.keyAlgorithm}`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, await publicKeyOf(credential.publicKey, credential.keyAlgorithm), {
      algorithms: [credential.keyAlgorithm],
      issuer: credential.principalId,
      subject: credential.principalId,
      audience: [deps.issuer, deps.tokenEndpoint],
      requiredClaims: ['exp', 'jti'],
      clockTolerance: CLOCK_SKEW_SECONDS,
    }));
  } catch (err) {
    throw new errors.InvalidGrant(
      `the assertion was refused (${(err as { code?: string }).code ?? 'invalid'}): iss and sub must be the principal's id, aud the issuer or the token endpoint, and exp in the future`,
    );
  }
  if (payload.exp! - Date.now() / 1000 > MAX_ASSERTION_SECONDS + CLOCK_SKEW_SECONDS)
    throw new errors.InvalidGrant(`the assertion must expire within ${MAX_ASSERTION_SECONDS} seconds`);
  if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 200)
    throw new errors.InvalidGrant('the assertion needs a jti');
  return { credential, payload };
}

/** Spends a verified assertion's jti, remembered until the assertion can no longer be accepted; false when it was spent before. */
export function spendAssertion(
  credentials: CredentialLookup,
  credential: UsableCredential,
  payload: JWTPayload,
): Promise<boolean> {
  return credentials.spendJti(
    credential.principalId,
    payload.jti!,
    new Date((payload.exp! + CLOCK_SKEW_SECONDS) * 1000),
  );
}

/** A signed assertion's key, claims and jti checked and the jti spent: the principal it proves (an agent's actor token). */
export async function assertedPrincipal(
  deps: CredentialGrantDeps,
  assertion: string,
  ip: string | undefined,
): Promise<string> {
  const { credential, payload } = await verifyAssertion(deps, assertion);
  if (!(await spendAssertion(deps.credentials, credential, payload))) {
    throw new errors.InvalidGrant('the assertion was used before (its jti is spent)');
  }
  await noteCredentialUse(deps.db, credential.id, ip);
  return credential.principalId;
}

/** Token exchange (RFC 8693) with an API key as the subject token: a token for the key's principal. */
export function apiKeyExchange(deps: CredentialGrantDeps): SubjectHandler {
  return async (ctx, apiKey) => {
    const credential = await deps.credentials.apiKey(apiKey);
    if (!credential) throw new errors.InvalidGrant('the API key is invalid, expired or revoked');
    await issue(ctx, deps, credential, true);
  };
}

/** RFC 7523 jwt-bearer: an assertion signed with one of the principal's registered keys is the grant. */
export function jwtBearerGrant(deps: CredentialGrantDeps): GrantPlugin {
  return {
    type: JWT_BEARER,
    handler: async (ctx: GrantContext) => {
      const assertion = ctx.oidc.params.assertion;
      if (!assertion) throw new errors.InvalidRequest('missing required parameter assertion');
      const { credential, payload } = await verifyAssertion(deps, assertion);
      // Checked before the jti is spent, so a refused organization does not burn the assertion.
      await deps.organizations.decide(ctx, credential.principalId);
      if (!(await spendAssertion(deps.credentials, credential, payload))) {
        throw new errors.InvalidGrant('the assertion was used before (its jti is spent)');
      }
      await issue(ctx, deps, credential, false);
    },
    params: ['assertion', 'scope', ORGANIZATION_PARAM],
  };
}
