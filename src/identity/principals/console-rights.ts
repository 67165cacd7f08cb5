import { ADMIN_SCOPE } from '../config.ts';
import type { PrincipalView } from './view.ts';
import { RIGHT_NAMES, type ConsoleRight, type RightName } from '../apps/console-right.ts';

export { RIGHT_NAMES, type ConsoleRight, type RightName } from '../apps/console-right.ts';

/** The scopes of the rights when nothing else says so (a service started alone uses its defaults too). */
export const DEFAULT_RIGHT_SCOPES: Record<RightName, string> = {
  identity: ADMIN_SCOPE,
  audits: 'audits',
  events: 'ingest:admin',
};

const DESCRIPTIONS: Record<RightName, string> = {
  identity: "identity's administration: applications, people, organizations, keys (the management API)",
  audits: 'the audit service: run audits and read their reports (its API)',
  events: "the ingest service's administration: projects, keys, destinations and events (its admin API)",
};

/** The rights with their scopes: `scopes` overrides the defaults (`platform start` passes the audit service's own scope). */
export function consoleRights(scopes: Partial<Record<RightName, string>> = {}): ConsoleRight[] {
  return RIGHT_NAMES.map((name) => ({
    name,
    scope: scopes[name] ?? DEFAULT_RIGHT_SCOPES[name],
    description: DESCRIPTIONS[name],
  }));
}

/**
 * The scopes a principal holds: its allowed scopes, except `admin` for anyone but a platform admin (a human with the
 * flag the management API has always required beside the scope). The one answer to "may this person's token carry this
 * scope", read wherever a person's token gets its scopes (first-party grants, consent, every use of a grant: code
 * exchange and refresh) and wherever a token is checked (admin/guard.ts), so a right taken away stops counting at once.
 */
export function heldScopes(principal: Pick<PrincipalView, 'allowedScopes' | 'human'> | undefined): string[] {
  if (!principal) return [];
  return principal.allowedScopes.filter((s) => s !== ADMIN_SCOPE || principal.human?.isPlatformAdmin === true);
}
