import { Type } from 'typebox';

/**
 * The platform's timestamp in a schema: ISO 8601 text (in UTC with milliseconds, as `isoUtc()` of sql.ts and
 * `toISOString()` write it). One declaration for every service's routes and documents.
 */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
