import type { ClaimMapping } from './claim-mappings.ts';

/** The OAuth app record (oauth_apps) as the service reads it: one shape for the provider, the management API and the CLI. */
export const APP_TYPES = ['web', 'spa', 'native', 'service', 'machine'] as const;
export type AppType = (typeof APP_TYPES)[number];

export interface AppRecord {
  id: string;
  clientId: string;
  name: string;
  description: string | null;
  logoUrl: string | null;
  appType: AppType;
  redirectUris: string[];
  allowedGrants: string[];
  allowedResponseTypes: string[];
  allowedScopes: string[];
  accessTokenTtl: number;
  refreshTokenTtl: number;
  authorizationCodeTtl: number;
  refreshTokenRotation: boolean;
  firstParty: boolean;
  public: boolean;
  /** May introspect tokens issued to other apps (RFC 7662 §4: only callers allowed to know a token's details learn them). */
  resourceServer: boolean;
  /** Every token request must carry a DPoP proof, so every token is bound to a key (RFC 9449 section 5.2). */
  dpopBoundAccessTokens: boolean;
  active: boolean;
  principalId: string;
  /** Where a logout token is sent when a session the app was signed in through ends (back-channel logout). */
  backchannelLogoutUri: string | null;
  /** The logout token carries the session's `sid` (and the app then needs it). */
  backchannelLogoutSessionRequired: boolean;
  /** Extra claims in its tokens (claim-mappings.ts). */
  claimMappings: ClaimMapping[];
  /** Signing in to it needs a second factor. */
  requireSecondFactor: boolean;
}

function asArray(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

export function appFromRow(row: Record<string, unknown>): AppRecord {
  return {
    id: String(row.id),
    clientId: String(row.client_id),
    name: String(row.name),
    description: (row.description as string | null) ?? null,
    logoUrl: (row.logo_url as string | null) ?? null,
    appType: row.app_type as AppType,
    redirectUris: asArray(row.redirect_uris),
    allowedGrants: asArray(row.allowed_grants),
    allowedResponseTypes: asArray(row.allowed_response_types),
    allowedScopes: asArray(row.allowed_scopes),
    accessTokenTtl: Number(row.access_token_ttl),
    refreshTokenTtl: Number(row.refresh_token_ttl),
    authorizationCodeTtl: Number(row.authorization_code_ttl),
    refreshTokenRotation: Boolean(row.refresh_token_rotation),
    firstParty: Boolean(row.first_party),
    public: Boolean(row.public),
    resourceServer: Boolean(row.resource_server),
    dpopBoundAccessTokens: Boolean(row.dpop_bound_access_tokens),
    active: Boolean(row.active),
    principalId: String(row.principal_id),
    backchannelLogoutUri: (row.backchannel_logout_uri as string | null) ?? null,
    backchannelLogoutSessionRequired: row.backchannel_logout_session_required !== false,
    claimMappings: Array.isArray(row.claim_mappings) ? (row.claim_mappings as ClaimMapping[]) : [],
    requireSecondFactor: Boolean(row.require_second_factor),
  };
}
