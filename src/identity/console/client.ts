import { PLATFORM_CONSOLE_CLIENT_ID, type BuiltInClient } from '../apps/built-in-clients.ts';
import type { ConsoleRight } from '../principals/console-rights.ts';

/** What the console asks for besides the rights' scopes: who the person is, and a refresh token. */
export const CONSOLE_BASE_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

/**
 * The platform console's built-in client (`platform start` adds it when identity runs beside the dashboard, whose web
 * app is the console): a single-page app, so public (PKCE, no secret: nothing to store or leak), first-party (no consent
 * screen, and `prompt=none` works: see first-party-grant.ts), allowed every right's scope (a person's token carries
 * only those they hold), with refresh tokens that rotate at each use. Its tokens live as long as a login session.
 */
export function consoleClient(options: {
  redirectUri: string;
  rights: readonly ConsoleRight[];
  refreshTokenTtl: number;
}): BuiltInClient {
  return {
    client_id: PLATFORM_CONSOLE_CLIENT_ID,
    client_name: 'Console',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [options.redirectUri],
    application_type: 'web',
    scope: [...new Set([...CONSOLE_BASE_SCOPES, ...options.rights.map((r) => r.scope)])].join(' '),
    id_token_signed_response_alg: 'RS256',
    first_party: true,
    app_type: 'spa',
    refresh_token_rotation: true,
    refresh_token_ttl: options.refreshTokenTtl,
  };
}
