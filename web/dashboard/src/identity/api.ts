import { serviceClient } from '../console/client.ts';

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
  app_type: 'web' | 'spa' | 'native' | 'service' | 'machine';
  redirect_uris: string[];
  allowed_scopes: string[];
  first_party: boolean;
  public: boolean;
  active: boolean;
}

/** The identity service's client: `<IDENTITY_ISSUER>/api/v1` with the console's token (its `admin` scope). */
export const identityApi = serviceClient('identity');
