import { queryOptions } from '@tanstack/react-query';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiPerson } from './types.ts';

export const personQuery = (id: string) =>
  queryOptions({
    queryKey: keys.identity.person(id),
    queryFn: ({ signal }) => identityApi.get<ApiPerson>(`/principals/${encodeURIComponent(id)}`, signal),
  });

/** The most a person's page lists of one kind (the API's page); `more` says when they have more than that. */
export const SHOWN = 100;

/**
 * One of a person's lists (sessions, consents, credentials…): the first 100, under the person's key so that every
 * change to them reads it again.
 */
export const personListQuery = <T>(id: string, what: string) =>
  queryOptions({
    queryKey: [...keys.identity.person(id), what],
    queryFn: async ({ signal }) => {
      const page = await identityApi.get<{ items: T[]; next: string | null }>(
        `/principals/${encodeURIComponent(id)}/${what}?limit=${SHOWN}`,
        signal,
      );
      return { items: page.items, more: page.next !== null };
    },
  });
