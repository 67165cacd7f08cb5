import type { ApiApplication, AppType } from '../api.ts';

/** Each kind of app identity registers (src/identity/apps/record.ts): its name, what it is, and what it is given. */
export const APP_TYPES: Record<AppType, { name: string; about: string }> = {
  web: {
    name: 'Web application',
    about:
      'Runs on a server that keeps a client secret; people sign in through it (authorization code, refresh token).',
  },
  spa: {
    name: 'Single-page application',
    about: 'Runs in the browser: no secret, PKCE; people sign in through it (authorization code, refresh token).',
  },
  native: {
    name: 'Native application',
    about:
      'A mobile or desktop app: no secret, PKCE; its redirect URIs may use its own reverse-domain scheme or http on the device.',
  },
  service: {
    name: 'Service',
    about: 'A back-end service calling APIs as itself with a client secret (client credentials); nobody signs in.',
  },
  machine: {
    name: 'Machine',
    about: 'A script, job or device calling APIs as itself with a client secret (client credentials); nobody signs in.',
  },
};
export const APP_TYPE_NAMES = Object.keys(APP_TYPES) as AppType[];

/** People sign in through these kinds (authorization code): they have redirect URIs, refresh tokens and consent. */
export const signsPeopleIn = (type: AppType) => type === 'web' || type === 'spa' || type === 'native';
/** These keep no secret, so they have none to rotate and cannot be resource servers. */
export const isPublic = (type: AppType) => type === 'spa' || type === 'native';

/** The scopes identity gives a new app of a kind when none are named (apps/store.ts). */
export const defaultScopes = (type: AppType) =>
  signsPeopleIn(type) ? ['openid', 'profile', 'email', 'offline_access'] : [];

const GRANTS: Record<string, string> = {
  authorization_code: 'authorization code',
  refresh_token: 'refresh token',
  client_credentials: 'client credentials',
};
export const grantsOf = (app: ApiApplication) => app.allowed_grants.map((g) => GRANTS[g] ?? g).join(', ');

/** "15 minutes", "7 days": a lifetime in seconds as a person reads it (the exact seconds are in the field). */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, unit] = units.find(([size]) => seconds >= size && seconds % size === 0) ?? [1, 'second'];
  const n = seconds / size;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
