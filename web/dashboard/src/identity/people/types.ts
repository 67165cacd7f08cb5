/** A person as identity's management API answers them (src/identity/principals/routes.ts, `PrincipalOut`). */
export interface ApiPerson {
  id: string;
  type: 'human' | 'application' | 'agent' | 'service';
  identifier: string;
  display_name: string;
  active: boolean;
  allowed_scopes: string[];
  created_at: string;
  updated_at: string;
  email?: string;
  is_platform_admin?: boolean;
  human?: {
    email: string;
    given_name: string | null;
    family_name: string | null;
    avatar_url: string | null;
    locale: string | null;
    timezone: string | null;
    is_platform_admin: boolean;
    last_login_at: string | null;
    email_verified_at: string | null;
  };
}

/** A credential without its secret (src/identity/credentials/routes.ts, `CredentialOut`). */
export interface ApiCredential {
  id: string;
  type: 'password' | 'api_key' | 'keypair' | 'webauthn' | 'totp' | 'client_secret';
  identifier: string | null;
  name: string | null;
  key_algorithm: string | null;
  key_id: string | null;
  active: boolean;
  expires_at: string | null;
  revoked: boolean;
  revoked_reason: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  created_at: string;
}

export interface ApiLinkedAccount {
  id: string;
  provider: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  last_login_at: string | null;
  created_at: string;
}

export interface ApiSession {
  id: string;
  created_at: string;
  expires_at: string;
  client_ip: string | null;
  user_agent: string | null;
  provider: string | null;
  second_factor: boolean;
}

export interface ApiConsent {
  id: string;
  app_id: string;
  client_id: string;
  app_name: string;
  scopes: string[];
  granted_at: string;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface ApiMembership {
  id: string;
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  organization_active: boolean;
  role: string;
  active: boolean;
  created_at: string;
}

export interface ApiRight {
  name: 'identity' | 'audits' | 'events';
  scope: string;
  description: string;
  held: boolean;
}

export interface ApiPasswordLink {
  link: string;
  expires_at: string;
  email: string;
}
