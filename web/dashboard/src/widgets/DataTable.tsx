import { useState } from 'react';
import type { ApiQueryResult } from '../api/types.ts';
import { show } from './data.ts';

const PAGE = 10;

/** A widget's rows as a table, a page at a time: the table widget itself and every chart's text alternative. */
export function DataTable({ result, caption }: { result: ApiQueryResult; caption: string }) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(result.rows.length / PAGE));
  const current = Math.min(page, pages - 1);
  const rows = result.rows.slice(current * PAGE, current * PAGE + PAGE);
  return (
    <div className="data-table">
      <section className="table-scroll" tabIndex={0} aria-label={caption}>
        <table>
          <caption className="visually-hidden">{caption}</caption>
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
      </section>
      {pages > 1 && (
        <div className="actions pager">
          <button
            type="button"
            className="secondary small"
            disabled={current === 0}
            onClick={() => setPage(current - 1)}
            aria-label={`Previous page of ${caption}`}
          >
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button
            type="button"
            className="secondary small"
            disabled={current + 1 >= pages}
            onClick={() => setPage(current + 1)}
            aria-label={`Next page of ${caption}`}
          >
            Next
          </button>
        </div>
      )}
      {result.truncated && <p className="hint">Only the first {result.rows.length} rows were read.</p>}
    </div>
  );
}
