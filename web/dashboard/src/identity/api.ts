import { serviceClient } from '../console/client.ts';

export type AppType = 'web' | 'spa' | 'native' | 'service' | 'machine';

/**
 * Identity's management API as the console reads it (src/identity/admin/routes.ts, `AppOut`): the fields its screens
 * show. Every text here was typed by someone (an app's name, its URLs): the screens render it as text only.
 */
export interface ApiApplication {
  id: string;
  client_id: string;
  name: string;
  description: string | null;
  logo_url: string | null;
  app_type: AppType;
  redirect_uris: string[];
  allowed_grants: string[];
  allowed_scopes: string[];
  access_token_ttl: number;
  refresh_token_ttl: number;
  authorization_code_ttl: number;
  refresh_token_rotation: boolean;
  first_party: boolean;
  resource_server: boolean;
  dpop_bound_access_tokens: boolean;
  email_code_sign_in: boolean;
  public: boolean;
  active: boolean;
  principal_id: string;
}

/** The identity service's client: `<IDENTITY_ISSUER>/api/v1` with the console's token (its `admin` scope). */
export const identityApi = serviceClient('identity');
