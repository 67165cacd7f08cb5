import { useEffect, useState } from 'react';
import { ApiError, get } from '../api/client.ts';
import type { ApiTable } from '../api/types.ts';

const ATTEMPTS = 4;

/**
 * The chosen source's tables and their columns, for the editor's completion. Only the answer for the source chosen
 * now is kept: an earlier source's schema arriving late (a slow database) must not replace it. A failure that may pass
 * (rate limited, the service or the database briefly unavailable, the network) is retried a few times with a growing
 * pause; completion simply offers no tables while there are none.
 */
export function useSourceTables(sourceId: number | undefined): Record<string, string[]> {
  const [tables, setTables] = useState<Record<string, string[]>>({});
  useEffect(() => {
    setTables({});
    if (!sourceId) return;
    const abort = new AbortController();
    const load = async () => {
      for (let attempt = 1; !abort.signal.aborted; attempt++) {
        try {
          const r = await get<{ tables: ApiTable[] }>(`/datasources/${sourceId}/schema?columns=true`, abort.signal);
          if (!abort.signal.aborted)
            setTables(Object.fromEntries(r.tables.map((t) => [t.name, (t.columns ?? []).map((c) => c.name)])));
          return;
        } catch (err) {
          const lasting = err instanceof ApiError && err.status < 500 && err.status !== 429;
          if (lasting || attempt >= ATTEMPTS || abort.signal.aborted) return;
          await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
        }
      }
    };
    void load();
    return () => abort.abort();
  }, [sourceId]);
  return tables;
}
