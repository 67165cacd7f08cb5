import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';
import { isActive, type ApiRun } from '../api.ts';

/** How often runs still waiting or running are read again: the audit API offers no push. */
const ACTIVE_MS = 2000;
/** How often a list with nothing running is read again, for runs CI starts meanwhile. */
const IDLE_MS = 30_000;

/**
 * Reads `key` again every two seconds while one of `runs` is waiting or running; with `idle`, every 30 seconds once
 * all have finished too (a list, where new runs may appear).
 */
export function useRefreshWhileActive(key: QueryKey, runs: Pick<ApiRun, 'status'>[] | undefined, idle = false): void {
  const client = useQueryClient();
  const active = runs?.some(isActive) ?? false;
  useEffect(() => {
    if (!active && !idle) return;
    const timer = setInterval(() => void client.invalidateQueries({ queryKey: key }), active ? ACTIVE_MS : IDLE_MS);
    return () => clearInterval(timer);
  }, [active, idle, client, key]);
}
