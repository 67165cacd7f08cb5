import Provider, { errors, type Client, type KoaContextWithOIDC } from 'oidc-provider';
import type { OidcProvider } from './provider.ts';

/**
 * private_key_jwt (RFC 7523 section 2.2, OpenID Connect Core 9): a confidential app whose principal has registered public
 * keys (credentials of type keypair) may authenticate with a client assertion instead of its secret, at the token,
 * introspection and revocation endpoints. The provider verifies the assertion against the app's keys (clients.ts puts
 * them in the client's `jwks`): `iss` and `sub` the client_id, `aud` the issuer or the endpoint, `exp` present, a `jti`
 * it has not seen (ReplayDetection in oidc_artifacts), the signature by the key `kid` names with its own algorithm.
 */

/** The live key pair with a key id, and whose it is: credentials' lookup (credentials/lookup.ts). */
export interface KeyLookup {
  keypair(keyId: string): Promise<{ principalId: string } | undefined>;
}

/** The longest a client assertion may live (exp - now, beyond the provider's clock tolerance). */
export const CLIENT_ASSERTION_MAX_SECONDS = 300;

/**
 * oidc-provider v9 knows one authentication method per client. An app keeps `client_secret_basic` (its secrets keep
 * working everywhere), and a request that carries a client assertion is authenticated as `private_key_jwt` when the app
 * has keys: the method the provider compares against is read per request.
 */
export function acceptKeysBesideSecrets(provider: OidcProvider): void {
  const registered = Object.getOwnPropertyDescriptor(provider.Client.prototype, 'clientAuthMethod');
  if (!registered?.get) throw new Error('oidc-provider Client has no clientAuthMethod getter');
  const registeredMethod = registered.get;
  Object.defineProperty(provider.Client.prototype, 'clientAuthMethod', {
    configurable: true,
    get(this: Client) {
      const method = registeredMethod.call(this) as string;
      if (method !== 'client_secret_basic' || !hasKeys(this)) return method;
      const params = (Provider.ctx as KoaContextWithOIDC | undefined)?.oidc?.params;
      return params?.client_assertion !== undefined ? 'private_key_jwt' : method;
    },
  });
}

function hasKeys(client: Client): boolean {
  const jwks = (client as { jwks?: { keys?: unknown[] } }).jwks;
  return Array.isArray(jwks?.keys) && jwks.keys.length > 0;
}

/**
 * What the provider leaves to configuration (`assertJwtClientAuthClaimsAndHeader`): the assertion names its key (`kid`),
 * that key is still a live credential of the app's principal (revoked or expired keys stop at once, whatever the client
 * cache holds), and it expires soon, so its jti need only be remembered that long.
 */
export function clientAssertionCheck(keys: KeyLookup, clockTolerance: number) {
  return async (
    _ctx: KoaContextWithOIDC,
    claims: Record<string, unknown>,
    header: Record<string, unknown>,
    client: Client,
  ): Promise<void> => {
    const kid = header.kid;
    if (typeof kid !== 'string' || !kid)
      throw new errors.InvalidClientAuth('the client assertion header must name its key (kid)');
    const key = await keys.keypair(kid);
    if (!key || key.principalId !== client.principal_id)
      throw new errors.InvalidClientAuth('no live key of this client has this kid (unknown, expired or revoked)');
    const exp = Number(claims.exp);
    if (!(exp - Date.now() / 1000 <= CLIENT_ASSERTION_MAX_SECONDS + clockTolerance))
      throw new errors.InvalidClientAuth(
        `the client assertion must expire within ${CLIENT_ASSERTION_MAX_SECONDS} seconds`,
      );
  };
}
