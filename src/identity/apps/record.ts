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
  /** Its sign-in page also offers a code mailed to the person instead of a password (email-codes/). */
  emailCodeSignIn: boolean;
  /** `#rrggbb` of its sign-in and consent pages' buttons and links (apps/brand.ts), or null for the service's own. */
  brandColor: string | null;
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

/** RFC 8628's grant: a device (a CLI, a TV) polls the token endpoint with its device code while the person approves it. */
export const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * A native app (a CLI, a TV app) may also sign people in by the device grant (RFC 8628): it runs where typing a
 * password or opening a browser is awkward. The stored grants stay the type's; the device grant follows from the type.
 */
function grantsOf(type: AppType, stored: string[]): string[] {
  return type === 'native' && !stored.includes(DEVICE_CODE) ? [...stored, DEVICE_CODE] : stored;
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
    allowedGrants: grantsOf(row.app_type as AppType, asArray(row.allowed_grants)),
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
    emailCodeSignIn: Boolean(row.email_code_sign_in),
    brandColor: (row.brand_color as string | null) ?? null,
    active: Boolean(row.active),
    principalId: String(row.principal_id),
    backchannelLogoutUri: (row.backchannel_logout_uri as string | null) ?? null,
    backchannelLogoutSessionRequired: row.backchannel_logout_session_required !== false,
    claimMappings: Array.isArray(row.claim_mappings) ? (row.claim_mappings as ClaimMapping[]) : [],
    requireSecondFactor: Boolean(row.require_second_factor),
  };
}
