import { serviceClient } from '../console/client.ts';

export type * from '../../../../src/ingest/api-types.ts';

/**
 * The ingest service's admin API (`<ingest>/api/v1`) with the console's token (its `ingest:admin` scope, the Events
 * right). Names, URLs, vendors' errors and dead letters' events were typed or sent by someone else: the screens render
 * them as text only, a URL a link only through SafeLink.
 */
export const ingestApi = serviceClient('events');

/** The query keys of the section's administration: under `events`, so invalidating the root covers them. */
export const ingestKeys = {
  projects: ['events', 'projects'] as const,
  project: (id: string) => ['events', 'projects', id] as const,
  keys: (id: string) => ['events', 'projects', id, 'keys'] as const,
  destinations: (projectId: string) => ['events', 'projects', projectId, 'destinations'] as const,
  destination: (id: string) => ['events', 'destinations', id] as const,
  figures: (id: string) => ['events', 'destinations', id, 'figures'] as const,
  deadLetters: (id: string) => ['events', 'destinations', id, 'dead-letters'] as const,
};

/** A path segment of an id typed by someone: encoded, so an id is never read as more of the path. */
export const seg = (id: string) => encodeURIComponent(id);
