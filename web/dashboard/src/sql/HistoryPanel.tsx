import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiDataSource, ApiHistoryItem } from '../api/types.ts';
import { messageOf } from '../data/errors.ts';
import { clearHistory, historyQuery } from '../queries/api.ts';
import { formatDateTime } from '../app/datetime.ts';

const SHOWN = 15;
const firstLine = (sql: string) => {
  const line = sql.trim().split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
};

/** The person's last runs (kept by the service, so they follow them from browser to browser); a click opens one again. */
export function HistoryPanel({
  sources,
  onOpen,
}: {
  sources: readonly ApiDataSource[];
  onOpen: (run: ApiHistoryItem) => void;
}) {
  const client = useQueryClient();
  const history = useQuery(historyQuery(SHOWN));
  const clear = useMutation({
    mutationFn: clearHistory,
    onSuccess: () => client.invalidateQueries({ queryKey: ['history'] }),
  });
  const items = history.data;
  return (
    <section aria-labelledby="history-title" className="history">
      <h2 id="history-title">Your recent runs</h2>
      {history.error && (
        <p role="alert" className="error">
          {messageOf(history.error, 'the history could not be loaded')}
        </p>
      )}
      {items && items.length === 0 && <p className="hint">Queries you run here are listed here.</p>}
      {items && items.length > 0 && (
        <>
          <ol className="plain history-list">
            {items.map((run) => (
              <li key={run.id}>
                <button type="button" className="link" onClick={() => onOpen(run)}>
                  <code>{firstLine(run.query)}</code>
                  <span className="visually-hidden"> (open in the editor)</span>
                </button>
                <span className="hint block">
                  {sources.find((s) => s.id === run.dataSourceId)?.name ?? 'a data source'}, {formatDateTime(run.ranAt)}
                  , {run.error ? `failed (${run.error})` : `${run.rowCount} ${run.rowCount === 1 ? 'row' : 'rows'}`}
                </span>
              </li>
            ))}
          </ol>
          <p className="actions">
            <button type="button" className="secondary small" onClick={() => clear.mutate()} disabled={clear.isPending}>
              Clear history
            </button>
          </p>
        </>
      )}
    </section>
  );
}
