import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import { ADMIN_SCOPE } from '../config.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { ClientStore } from '../oidc/clients.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

/**
 * The management API takes an access token carrying the admin scope, issued to a platform admin who
 * is still active, through an app that is still active. Client-credentials tokens never qualify: they belong to no human.
 */
export async function requireAdmin(request: FastifyRequest, holder: ProviderHolder, accounts: PrincipalDirectory, clients: ClientStore): Promise<string> {
  const m = BEARER.exec(request.headers.authorization ?? '');
  if (!m) throw new HttpError(401, 'invalid_token', 'an access token is required (Authorization: Bearer ...)', { headers: { 'www-authenticate': 'Bearer realm="identity"' } });
  const token = await holder.current.AccessToken.find(m[1]!);
  // The provider's find checks neither the app the token was issued to nor its grant: a deactivated app's tokens must not count.
  if (!token || token.isExpired || !token.clientId || !(await clients.app(token.clientId))?.active) {
    throw new HttpError(401, 'invalid_token', 'the access token is invalid, expired or revoked', { headers: { 'www-authenticate': 'Bearer realm="identity", error="invalid_token"' } });
  }
  const scopes = new Set(String(token.scope ?? '').split(' '));
  const account = await accounts.find(token.accountId);
  if (!scopes.has(ADMIN_SCOPE) || !account?.active || !account.human?.isPlatformAdmin) {
    throw new HttpError(403, 'insufficient_scope', 'this needs an access token with the admin scope, issued to a platform admin', {
      headers: { 'www-authenticate': `Bearer realm="identity", error="insufficient_scope", scope="${ADMIN_SCOPE}"` },
    });
  }
  return account.id;
}
