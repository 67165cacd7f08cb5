/**
 * The events identity sends to webhooks, and which change-log actions are each. A change-log action is
 * `<thing>.<verb>` (admin-log/describe.ts derives it from the management API's path; sign-ins and the account pages
 * name theirs); the first rule that matches an action gives its event, and an action no rule matches is logged but
 * sends nothing.
 */
export const EVENT_TYPES = {
  'principal.created': 'A person, service or agent was created.',
  'principal.updated': 'A principal’s profile or settings changed.',
  'principal.deactivated': 'A principal was deactivated: its sign-ins and tokens stop counting.',
  'principal.reactivated': 'A deactivated principal was reactivated.',
  'signin.succeeded': 'A person signed in (any method: password, passkey, social provider).',
  'signin.failed': 'A sign-in was refused (wrong password or second factor).',
  'second_factor.added': 'A person added a second factor (TOTP or passkey).',
  'second_factor.removed': 'A second factor was removed, by its person or reset by an administrator.',
  'application.created': 'An application was registered.',
  'application.changed': 'An application’s settings, secrets or status changed.',
  'session.revoked': 'A sign-in session ended: signed out, ended from another browser or by an administrator.',
  'token.revoked': 'Tokens or a consent were revoked by an administrator.',
  'membership.changed': 'A person joined or left an organization, or their role there changed.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;
/** Sent by "send a test" only: no change behind it. */
export const TEST_EVENT = 'webhook.test';

const RULES: [RegExp, EventType][] = [
  [/^principal\.create$/, 'principal.created'],
  [/^principal\.deactivate$/, 'principal.deactivated'],
  [/^principal\.activate$/, 'principal.reactivated'],
  [/^principal\.(update|password\.set|external-identity\.delete)$/, 'principal.updated'],
  [/^principal\.(token|consent)\.delete$/, 'token.revoked'],
  [/^(login_session|login_sessions)\.end/, 'session.revoked'],
  [/^second_factors?\.(reset|remove)$/, 'second_factor.removed'],
  [/^second_factor\.add$/, 'second_factor.added'],
  [/^signin\.succeed$/, 'signin.succeeded'],
  [/^signin\.fail$/, 'signin.failed'],
  [/^application\.create$/, 'application.created'],
  [/^application\./, 'application.changed'],
  [/^organization\.member\./, 'membership.changed'],
  [/^invitation\.accept$/, 'membership.changed'],
];

export function eventTypeOf(action: string): EventType | null {
  for (const [pattern, type] of RULES) if (pattern.test(action)) return type;
  return null;
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}
