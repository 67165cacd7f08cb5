import { Type } from 'typebox';
import { DESTINATION_KINDS } from './vendors/kinds.ts';

/** Forwarding's admin answers (admin-routes.ts, inspect-routes.ts); the console reads their types (src/ingest/api-types.ts). */
export const Kind = Type.Enum(DESTINATION_KINDS, { description: DESTINATION_KINDS.join(', ') });
export const Settings = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Non-secret settings of the kind: `project_id` (mixpanel service account), `min_id_length` (amplitude)',
});
export const Credentials = Type.Record(Type.String(), Type.String(), {
  description:
    'webhook: `secret` (generated when absent); posthog: `api_key`; segment: `write_key`; mixpanel: `project_token`, or `service_account_username` and `service_account_secret`; amplitude: `api_key`. Stored encrypted, never shown again.',
});
export const Destination = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  kind: Kind,
  base_url: Type.String({
    description:
      'Only scheme, host and port, with `/…` when the URL has more: the whole URL is kept sealed and never returned',
  }),
  settings: Type.Record(Type.String(), Type.Unknown()),
  credential_fields: Type.Array(Type.String(), {
    description: 'Names of the credentials held (their values are never returned)',
  }),
  enabled: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  pending: Type.Integer({ description: 'Events waiting for delivery' }),
  dead_letters: Type.Integer(),
});
export const CreatedDestination = Type.Object({
  ...Destination.properties,
  secret: Type.Optional(
    Type.String({
      description:
        'The generated webhook signing secret (at creation, or when a change gives a webhook credentials without `secret`): shown only in this answer',
    }),
  ),
});
export const DeadLetter = Type.Object({
  id: Type.Integer(),
  destination_id: Type.String(),
  event_id: Type.String(),
  reason: Type.String(),
  attempts: Type.Integer(),
  first_failed_at: Type.String(),
  queued_at: Type.String(),
  dead_at: Type.String(),
});
export const Figures = Type.Object({
  destination_id: Type.String(),
  delivered: Type.Integer({ description: 'Events the destination took since it was made' }),
  waiting: Type.Integer({ description: 'Events queued and not failed yet' }),
  retrying: Type.Integer({ description: 'Events queued that failed at least once and will be tried again' }),
  dead: Type.Integer({ description: 'Events in its dead letters' }),
  oldest_queued_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'The newest error of a retrying event (the destination’s own words, its secrets removed)',
  }),
});
export const TestResult = Type.Object({
  delivered: Type.Boolean(),
  outcome: Type.Enum(['delivered', 'retry', 'rejected', 'partial', 'unreachable', 'refused'], {
    description:
      '`retry`: the destination is down or busy (408, 429, 5xx); `rejected`: it refused (credentials, payload); `unreachable`: no answer; `refused`: not sent, its address is on the internal network (INGEST_DESTINATION_ALLOW_HOSTS allows such a host; the message names the address)',
  }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Its HTTP status; null when nothing answered (unreachable, or an address refused)',
  }),
  message: Type.String(),
  event_id: Type.String({ description: 'The test event’s `event_id`, to find it at the destination' }),
});
export const DeadLetterDetail = Type.Object({
  id: Type.Integer(),
  destination_id: Type.String(),
  event_id: Type.String(),
  reason: Type.String(),
  attempts: Type.Integer(),
  first_failed_at: Type.String(),
  queued_at: Type.String(),
  dead_at: Type.String(),
  payload: Type.Union([Type.String(), Type.Null()], {
    description: 'The event as received (JSON text); null when retention has removed it (a replay then sends nothing)',
  }),
});
