/** The service's API shapes, derived from its TypeBox schemas (one definition for server and app). */
export type * from '../../../../src/dashboard/api-types.ts';
