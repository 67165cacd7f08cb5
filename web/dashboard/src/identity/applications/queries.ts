import { queryOptions } from '@tanstack/react-query';
import { keys } from '../../data/keys.ts';
import { identityApi, type ApiApplication } from '../api.ts';

/** The scopes identity knows: what an app may be allowed (they change only when identity restarts differently). */
export const scopesQuery = () =>
  queryOptions({
    queryKey: keys.identity.scopes(),
    queryFn: async ({ signal }) => (await identityApi.get<{ scopes: string[] }>('/scopes', signal)).scopes,
    staleTime: Number.POSITIVE_INFINITY,
  });

export const applicationQuery = (id: string) =>
  queryOptions({
    queryKey: keys.identity.application(id),
    queryFn: ({ signal }) => identityApi.get<ApiApplication>(`/applications/${encodeURIComponent(id)}`, signal),
  });
