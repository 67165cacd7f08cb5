import type { ApiApplication, AppType } from '../api.ts';
import { defaultScopes, isPublic, signsPeopleIn } from './app-types.ts';

/** The settings form's fields as typed (text stays text until sent). */
export interface AppDraft {
  name: string;
  description: string;
  logoUrl: string;
  redirectUris: string;
  scopes: string[];
  accessTtl: string;
  refreshTtl: string;
  codeTtl: string;
  rotation: boolean;
  firstParty: boolean;
  resourceServer: boolean;
  dpop: boolean;
  emailCode: boolean;
}

/** An app's settings as the form shows them, or a new app's defaults (identity's own, apps/store.ts). */
export function draftOf(type: AppType, app?: ApiApplication): AppDraft {
  return {
    name: app?.name ?? '',
    description: app?.description ?? '',
    logoUrl: app?.logo_url ?? '',
    redirectUris: (app?.redirect_uris ?? []).join('\n'),
    scopes: app?.allowed_scopes ?? defaultScopes(type),
    accessTtl: String(app?.access_token_ttl ?? 900),
    refreshTtl: String(app?.refresh_token_ttl ?? 604_800),
    codeTtl: String(app?.authorization_code_ttl ?? 600),
    rotation: app?.refresh_token_rotation ?? true,
    firstParty: app?.first_party ?? false,
    resourceServer: app?.resource_server ?? false,
    dpop: app?.dpop_bound_access_tokens ?? false,
    emailCode: app?.email_code_sign_in ?? false,
  };
}

export type AppBody = Partial<Omit<ApiApplication, 'description' | 'logo_url'>> & {
  description?: string | null;
  logo_url?: string | null;
};

/** The API's fields for the draft: only those its kind has (a machine has no redirect URIs or refresh tokens). */
export function bodyOf(type: AppType, d: AppDraft): AppBody {
  const people = signsPeopleIn(type);
  return {
    name: d.name.trim(),
    description: d.description.trim() || null,
    logo_url: d.logoUrl.trim() || null,
    allowed_scopes: d.scopes,
    access_token_ttl: Number(d.accessTtl),
    dpop_bound_access_tokens: d.dpop,
    ...(people
      ? {
          redirect_uris: d.redirectUris
            .split('\n')
            .map((u) => u.trim())
            .filter(Boolean),
          refresh_token_ttl: Number(d.refreshTtl),
          authorization_code_ttl: Number(d.codeTtl),
          refresh_token_rotation: d.rotation,
          first_party: d.firstParty,
          email_code_sign_in: d.emailCode,
        }
      : {}),
    ...(isPublic(type) ? {} : { resource_server: d.resourceServer }),
  };
}

/** Only what differs from the app as it is: what PATCH sends, so an unchanged form changes (and records) nothing. */
export function changesOf(app: ApiApplication, body: AppBody): AppBody {
  return Object.fromEntries(
    Object.entries(body).filter(
      ([k, v]) => JSON.stringify(v) !== JSON.stringify((app as unknown as Record<string, unknown>)[k] ?? null),
    ),
  ) as AppBody;
}
