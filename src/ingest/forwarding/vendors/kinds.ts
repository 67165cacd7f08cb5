/**
 * The one list of destination kinds. The `kind` CHECK of `destinations` (migration 002_forwarding.sql) repeats it
 * because SQL cannot import it; test/ingest/schema.test.ts fails when the two differ.
 */
export const DESTINATION_KINDS = ['webhook', 'posthog', 'segment', 'mixpanel', 'amplitude'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];
