import { Type } from 'typebox';

/** A point in time as the services answer it: ISO 8601 in UTC (`toISOString()`, the kit's SQL `isoUtc`). */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
