/**
 * A person's console rights are scopes of identity they hold: a section of the platform's console (and its service's
 * API) opens to a token carrying the section's scope, and identity puts a scope in a person's token only while the person
 * holds it (heldScopes). The scopes live where every scope a principal may receive lives, in `principals.allowed_scopes`;
 * `PUT /api/v1/principals/:id/console-rights` changes them and records who did (console/rights-store.ts).
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
