import type { Pages } from '../data/paging.ts';

/** Previous and next page, for a list with a cursor; the page number is said in the list's status region. */
export function Pager({ pages, label }: { pages: Pages<unknown>; label: string }) {
  if (!pages.hasNext && !pages.hasPrevious) return null;
  return (
    <nav aria-label={`${label} pages`} className="actions pager">
      <button type="button" className="secondary" disabled={!pages.hasPrevious} onClick={pages.previous}>
        Previous page
      </button>
      <span>Page {pages.page}</span>
      <button type="button" className="secondary" disabled={!pages.hasNext} onClick={pages.next}>
        Next page
      </button>
    </nav>
  );
}
