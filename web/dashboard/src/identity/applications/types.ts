/** A client secret as identity lists it (src/identity/admin/routes.ts, `SecretOut`): its first characters, never itself. */
export interface ApiSecret {
  id: string;
  secret_prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_reason: string | null;
}

/** POST /applications/:id/secrets/rotate: the new secret (answered this once) and the others as they are now. */
export interface ApiRotation {
  secret: ApiSecret & { client_secret: string };
  previous: ApiSecret[];
}

/** One event of an app's token activity (src/identity/oidc/token-activity.ts). */
export interface ApiTokenEvent {
  at: string;
  event: 'issued' | 'refreshed' | 'revoked';
  token_id: string;
  token_kind: 'access_token' | 'client_credentials' | 'refresh_token';
  grant_type: string | null;
  scopes: string[];
  subject: { id: string; type: string; identifier: string; display_name: string } | null;
  client_ip: string | null;
  reason: string | null;
}
