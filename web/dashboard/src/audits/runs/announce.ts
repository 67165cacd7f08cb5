import { useEffect, useRef, useState } from 'react';
import type { ApiRun } from '../api.ts';
import { announcement } from './announcement.ts';

/**
 * What a polite live region says as the runs shown change (see announcement.ts); the runs on first showing are not
 * said, the list's own status says how many there are.
 */
export function useRunAnnouncements(runs: ApiRun[] | undefined): string {
  const seen = useRef(new Map<string, ApiRun>());
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!runs) return;
    const lines = runs.map((r) => announcement(seen.current.get(r.id), r)).filter((l): l is string => l !== undefined);
    for (const r of runs) seen.current.set(r.id, r);
    if (lines.length > 0) setSaid(lines.join(' '));
  }, [runs]);
  return said;
}
