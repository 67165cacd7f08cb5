import { useState, type ReactNode } from 'react';
import type { ApiQueryResult } from '../api/types.ts';
import { WideTable } from '../app/WideTable.tsx';
import { clickText } from './clickValue.ts';
import { show, toNumber, type WidgetOptions } from './data.ts';
import { formatValue, isFormat } from './format.ts';

type Sort = { column: string; descending: boolean } | undefined;

/** Numbers in numeric order, then text in the reader's collation; NULL last either way. */
function compare(a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  const x = toNumber(a);
  const y = toNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  return show(a).localeCompare(show(b));
}

const PAGE = 10;

/**
 * A widget's rows as a table, a page at a time: the table widget itself and every chart's text alternative. A
 * column header sorts by that column (again: the other way), and each column is written in its format
 * (`options.formats`). `still` (a picture): the first page with plain headers, and how many rows it shows.
 * `pick`: the cells of one column act (the widget's click behaviour), each drawn by `cell` from its value and text;
 * a NULL stays plain text.
 */
export function DataTable({
  result,
  caption,
  options = {},
  still = false,
  pick,
}: {
  result: ApiQueryResult;
  caption: string;
  options?: WidgetOptions;
  still?: boolean;
  pick?: { column: string; cell: (value: string, text: string) => ReactNode } | undefined;
}) {
  const [page, setPage] = useState(0);
  const [sort, setSort] = useState<Sort>();
  const pages = Math.max(1, Math.ceil(result.rows.length / PAGE));
  const current = Math.min(page, pages - 1);
  const ordered = sort
    ? [...result.rows].sort((a, b) => compare(a[sort.column], b[sort.column]) * (sort.descending ? -1 : 1))
    : result.rows;
  const rows = ordered.slice(current * PAGE, current * PAGE + PAGE);
  const text = (c: string, v: unknown) => {
    const f = options.formats?.[c];
    return isFormat(f) ? formatValue(v, f, options) : show(v);
  };
  const cell = (c: string, v: unknown): ReactNode => {
    const value = pick && c === pick.column ? clickText(v) : undefined;
    return value === undefined ? text(c, v) : pick!.cell(value, text(c, v));
  };
  return (
    <div className="data-table">
      {/* Its region scrolls sideways within the widget, with the shadow and description every wide table has: at
          320 px its last column was cut at the widget's edge with nothing to say there was more. */}
      <WideTable label={caption} tall>
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {result.columns.map((c, i) => {
                const sorted = sort?.column === c ? (sort.descending ? 'descending' : 'ascending') : undefined;
                if (still)
                  return (
                    <th scope="col" key={i}>
                      {c}
                    </th>
                  );
                return (
                  <th scope="col" key={i} aria-sort={sorted}>
                    <button
                      type="button"
                      className="sort"
                      onClick={() => {
                        setSort({ column: c, descending: sort?.column === c && !sort.descending });
                        setPage(0);
                      }}
                    >
                      {c}
                      <span aria-hidden="true">
                        {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {result.columns.map((c, j) => (
                  <td key={j}>{cell(c, r[c])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </WideTable>
      {pages > 1 && still && (
        <p className="hint">
          The first {PAGE} of {result.rows.length} rows.
        </p>
      )}
      {pages > 1 && !still && (
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
