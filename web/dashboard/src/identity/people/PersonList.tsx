import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { personListQuery, SHOWN } from './lists.ts';

/**
 * A section of a person's page listing one of their collections (sessions, consents…): a heading, its own status line,
 * the table or what says there is none, and a note when they have more than the page shows.
 */
export function PersonList<T>({
  id,
  what,
  title,
  caption,
  none,
  columns,
  row,
  status,
  filter = () => true,
  order,
  after,
}: {
  id: string;
  /** The path under /principals/:id, and the key under the person's. */
  what: string;
  title: string;
  caption: string;
  none: string;
  columns: string[];
  row: (item: T) => ReactNode;
  /** What the section's last action did, said in its status line. */
  status?: string;
  filter?: (item: T) => boolean;
  order?: (a: T, b: T) => number;
  /** Said under the table (what was left out). */
  after?: (all: T[]) => ReactNode;
}) {
  const list = useQuery(personListQuery<T>(id, what));
  const kept = list.data?.items.filter(filter);
  const items = order ? kept?.sort(order) : kept;
  const headingId = `person-${what}`;
  return (
    <section className="screen-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {status !== undefined && (
        <p role="status" className="status typed">
          {status}
        </p>
      )}
      {list.error && (
        <p role="alert" className="error">
          {messageOf(list.error, 'the identity service could not be reached')}
        </p>
      )}
      {items && items.length === 0 && <p>{none}</p>}
      {items && items.length > 0 && (
        <WideTable label={title}>
          <table>
            <caption>{caption}</caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{items.map(row)}</tbody>
          </table>
        </WideTable>
      )}
      {list.data && after?.(list.data.items)}
      {list.data?.more && <p className="hint">Only the first {SHOWN} are listed here.</p>}
    </section>
  );
}
