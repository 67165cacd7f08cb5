import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';

/** A refusal that asking again will not change (a 4xx other than 429); anything else may pass: 429, 5xx, the network. */
export const lasting = (err: unknown) => err instanceof ApiError && err.status < 500 && err.status !== 429;

/**
 * The app's one cache of what it read from the API. Reads are fresh when a screen opens (staleTime 0: a screen shows
 * what it had at once and asks again behind it); they are not repeated on window focus (tabs are switched all day and
 * every request counts against the tenant's rate limit) nor retried by default: a screen says a failure at once, as it
 * always did, and the few reads that ride out a passing failure say so themselves. `networkMode: 'always'` sends a
 * request even when the browser believes it is offline, so a screen shows the failure instead of waiting in silence.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, networkMode: 'always' },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}
