import type { ConsoleRight } from './console-right.ts';

/**
 * Clients the provider knows from the process that started it, not from oauth_apps: `platform start` running identity
 * beside another service of the platform (the dashboard) gives identity a web client for it (src/platform/links.ts).
 * Like the account pages' client (below) they are oidc-provider static clients: public (PKCE, no
 * secret, so nothing to store or leak), first-party (no consent screen), and gone when the services run apart.
 */
export interface BuiltInClient {
  client_id: string;
  scope: string;
  [key: string]: unknown;
}

/** What `platform start` hands identity when it runs other services of the platform in the same process. */
export interface IdentityLinks {
  builtInClients: BuiltInClient[];
  /** The console's rights with their scopes, which identity then knows (src/identity/console/rights.ts). */
  consoleRights?: ConsoleRight[];
  /** Browser origins allowed to call `/api/v1` besides IDENTITY_CORS_ORIGINS: the dashboard's, where the console runs. */
  corsOrigins?: string[];
}

/** The client ids reserved for built-in clients: an app registered with one would be shadowed by it. */
export const PLATFORM_DASHBOARD_CLIENT_ID = 'platform-dashboard';
export const PLATFORM_CONSOLE_CLIENT_ID = 'platform-console';

/** A public, first-party web client signing people in with the authorization code flow and PKCE. */
export function platformWebClient(options: {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
}): BuiltInClient {
  return {
    client_id: options.clientId,
    client_name: options.name,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: options.redirectUris,
    application_type: 'web',
    scope: options.scopes.join(' '),
    id_token_signed_response_alg: 'RS256',
    first_party: true,
    app_type: 'web',
  };
}

/**
 * The service's own pages (change password, invitations, the second-factor settings) sign people in through the
 * normal sign-in: an authorization request of this built-in client, whose interaction is the same sign-in page with
 * the same checks (and any second factor), and whose end is the same login session (`__Host-svc_login`). The client
 * is static (oidc-provider's `clients` option): it is not an app in the database, takes no secret, and its code is
 * never exchanged for tokens (the callback only marks it used).
 */
export const ACCOUNT_CLIENT_ID = 'identity-account-pages';
export const CALLBACK_PATH = '/account/callback';

/** The account pages' client: its code comes back to CALLBACK_PATH (account/signin-routes.ts). */
export function accountClientMetadata(issuer: string): { client_id: string; [key: string]: unknown } {
  return {
    client_id: ACCOUNT_CLIENT_ID,
    client_name: 'your account',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [new URL(CALLBACK_PATH, issuer).href],
    scope: 'openid',
    first_party: true,
  };
}
