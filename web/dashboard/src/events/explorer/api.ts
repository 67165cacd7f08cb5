import { useQuery } from '@tanstack/react-query';
import type { ApiEvent, ApiEventCounts, ApiEventSummary } from '../../../../../src/ingest/read/schema.ts';
import type { ApiPage } from '../../api/types.ts';
import { serviceClient } from '../../console/client.ts';
import { MAX_PAGE } from '../../data/paging.ts';

export type { ApiEvent, ApiEventCounts, ApiEventSummary };

/**
 * Ingest's admin API as the Events section's live view and explorer read it, with the console's token (the `events`
 * right). Every text an event carries came from any page holding the project's public key: shown as text only.
 */
export const eventsApi = serviceClient('events');

export interface ApiProject {
  id: string;
  name: string;
}

/** The cache keys of these screens, under the section's root. */
export const readKeys = {
  projects: ['events', 'projects', 'all'] as const,
  events: (projectId: string) => ['events', 'read', projectId, 'list'] as const,
  counts: (projectId: string, query: object) => ['events', 'read', projectId, 'counts', query] as const,
  event: (projectId: string, eventId: string) => ['events', 'read', projectId, 'event', eventId] as const,
};

/** Every project, for the picker (a handful in practice; every page is read). */
export function useProjects() {
  return useQuery({
    queryKey: readKeys.projects,
    queryFn: async ({ signal }) => {
      const all: ApiProject[] = [];
      let cursor: string | null = null;
      do {
        const page: ApiPage<ApiProject> = await eventsApi.get(
          `/projects?limit=${MAX_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          signal,
        );
        all.push(...page.items);
        cursor = page.next;
      } while (cursor);
      return all;
    },
  });
}

export const eventsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/events`;

/** A range's counts, of the types the query names (`type` or `exclude_type`, repeated) or of all, with or without the internal users. */
export function useCounts(
  projectId: string | undefined,
  query: {
    from: string;
    to: string;
    bucket: 'hour' | 'day';
    type?: readonly string[];
    exclude_type?: readonly string[];
    internal?: 'exclude';
  },
) {
  return useQuery({
    queryKey: readKeys.counts(projectId ?? '', query),
    enabled: projectId !== undefined,
    queryFn: ({ signal }) => {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) for (const v of [value].flat()) search.append(name, v);
      return eventsApi.get<ApiEventCounts>(
        `/projects/${encodeURIComponent(projectId!)}/event-counts?${search}`,
        signal,
      );
    },
  });
}

export function useEvent(projectId: string, eventId: string) {
  return useQuery({
    queryKey: readKeys.event(projectId, eventId),
    queryFn: ({ signal }) => eventsApi.get<ApiEvent>(`${eventsPath(projectId)}/${encodeURIComponent(eventId)}`, signal),
  });
}
