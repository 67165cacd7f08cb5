import { EVENT_TYPES as CONTRACT_TYPES } from '../../../../src/ingest/events/fields.ts';

/** The event types of ingest's contract, as the service checks them, for the screens' type filters. */
export const EVENT_TYPES: readonly string[] = [...CONTRACT_TYPES];
