import { useState } from 'react';
import type { ApiQueryResult } from '../api/types.ts';
import { downloadCsv } from '../app/download.ts';
import { WideTable } from '../app/WideTable.tsx';

const PAGE = 25;
const show = (v: unknown) =>
  v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/**
 * Query results a page at a time. The row count, the time and whether the service stopped reading are the SQL
 * screen's status line (announced when a run ends), not repeated here.
 */
export function ResultTable({ result, title = 'query results' }: { result: ApiQueryResult; title?: string }) {
  const [page, setPage] = useState(0);
  // A new result starts at its first page; the page of the last one may not exist in it.
  const [shown, setShown] = useState(result);
  if (shown !== result) {
    setShown(result);
    setPage(0);
  }
  const pages = Math.max(1, Math.ceil(result.rows.length / PAGE));
  const rows = result.rows.slice(page * PAGE, page * PAGE + PAGE);
  return (
    <section aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      {result.columns.length > 0 && (
        <WideTable label="Result rows" tall>
          <table>
            <caption className="visually-hidden">Result rows</caption>
            <thead>
              <tr>
                {result.columns.map((c, i) => (
                  <th scope="col" key={i}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i}>
                  {result.columns.map((c, j) => (
                    <td key={j}>{show(r[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {result.columns.length > 0 && (
        <p className="actions">
          <button type="button" className="secondary" onClick={() => downloadCsv(title, result)}>
            Download CSV
          </button>
          {result.truncated && <span className="hint">The CSV holds only the rows read, up to the row limit.</span>}
        </p>
      )}
      {pages > 1 && (
        <nav aria-label="Result pages" className="actions">
          <button type="button" className="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span aria-live="polite">
            Page {page + 1} of {pages}
          </span>
          <button type="button" className="secondary" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </section>
  );
}
