/**
 * Identity's change log as the console reads it (src/identity/admin-log/routes.ts). Names, emails and every value in
 * `before`/`after` were typed by someone: the screen renders them as text only.
 */
export interface ApiAdminChange {
  id: string;
  at: string;
  actor: {
    kind: 'person' | 'admin-token' | 'platform' | 'command' | 'anonymous' | 'scim';
    id: string | null;
    name: string | null;
    email: string | null;
  };
  action: string;
  event: string | null;
  client_ip: string | null;
  target: { type: string; id: string; name: string | null };
  before: unknown;
  after: unknown;
}

/** Action beginnings offered while typing one (`organization` finds every `organization.…` action). */
export const ACTION_HINTS = [
  'application',
  'application.secret',
  'principal',
  'principal.credential',
  'principal.password',
  'principal.agent.approval',
  'console_rights',
  'organization',
  'organization.member',
  'organization.invite',
  'signing-key',
  'listing',
  'license',
  'license.seat',
  'organization.subscription',
];

export const TARGET_TYPES: Record<string, string> = {
  application: 'Application',
  principal: 'Principal',
  organization: 'Organization',
  listing: 'Listing',
  license: 'License',
  'signing-key': 'Signing key',
};
