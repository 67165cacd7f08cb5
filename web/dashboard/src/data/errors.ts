import { ApiError } from '../api/client.ts';

/** What a failed request says to the person: the service's message, or that it could not be reached at all. */
export const messageOf = (err: unknown, fallback = 'the service could not be reached'): string =>
  err instanceof ApiError ? err.message : fallback;
