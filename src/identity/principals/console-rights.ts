import { ADMIN_SCOPE } from '../config.ts';
import type { PrincipalView } from './view.ts';

/**
 * A person's console rights are scopes of identity they hold: a section of the platform's console (and its service's
 * API) opens to a token carrying the section's scope, and identity puts a scope in a person's token only while the person
 * holds it (heldScopes). The scopes live where every scope a principal may receive lives, in `principals.allowed_scopes`;
 * `PUT /api/v1/principals/:id/console-rights` changes them and records who did (rights-store.ts).
 */
export const RIGHT_NAMES = ['identity', 'audits', 'events'] as const;
export type RightName = (typeof RIGHT_NAMES)[number];

export interface ConsoleRight {
  name: RightName;
  /** The scope that carries it: `admin`, the audit service's AUDIT_REQUIRED_SCOPE, `ingest:admin`. */
  scope: string;
  /** What it opens, for people reading the API's answer. */
  description: string;
}

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
