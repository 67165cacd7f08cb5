import type { ApiConsoleConfig } from '../../../../src/dashboard/console/schema.ts';
import { get } from '../api/client.ts';
import { keys } from '../data/keys.ts';

/** Where the console signs in and which services it may call: `platform start`'s links, served by the dashboard. */
export type ConsoleConfig = ApiConsoleConfig;
export type ConsoleIdentity = NonNullable<ConsoleConfig['identity']>;
/** A section of the console other than the dashboards: each one a service of the platform and a right of the person. */
export type Right = ConsoleConfig['services'][number]['section'];

/** Read once per page load: it changes only when the platform is restarted differently. */
export const consoleConfigQuery = () => ({
  queryKey: keys.console.config,
  queryFn: ({ signal }: { signal: AbortSignal }) => get<ConsoleConfig>('/console/config', signal),
  staleTime: Number.POSITIVE_INFINITY,
});
