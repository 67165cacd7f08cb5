/** A section of the console that calls a service of the platform, and the scope its calls need. */
export interface ConsoleService {
  section: 'identity' | 'audits' | 'events';
  /** The service's base URL as the browser reaches it (`/api/v1` is appended). */
  url: string;
  /** The scope of identity an access token must carry: the person's right to the section. */
  scope: string;
}

/**
 * What `platform start` hands the dashboard when identity runs beside it (src/platform/links.ts): the web app is then the
 * platform's console. It signs in at identity with the built-in public client (PKCE, first-party) right after the
 * dashboard's own sign-in, and calls each linked service's API with that token.
 */
export interface ConsoleLinks {
  issuer: string;
  clientId: string;
  /** Where identity sends the browser back with the code: `<dashboard>/console/callback`, a page of the web app. */
  redirectUri: string;
  /** What the console asks for: who the person is, a refresh token, every section's scope. */
  scope: string;
  services: ConsoleService[];
}

/** The web app's path identity redirects to. */
export const CONSOLE_CALLBACK_PATH = '/console/callback';
