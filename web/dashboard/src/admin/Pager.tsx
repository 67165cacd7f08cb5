import type { Pages } from '../data/paging.ts';

/** What a pager needs of a list: a cursor's pages (`useCursorPages`) or a numbered list's. */
type Paged = Pick<Pages<unknown>, 'page' | 'hasNext' | 'hasPrevious' | 'next' | 'previous'>;

/**
 * Previous and next page, with the page shown between them ("Page 2", or "Page 2 of 5" when the list knows how many);
 * the page is also said in the list's status region. The buttons read "Previous" and "Next" and are named "Previous
 * page" and "Next page" (the visible word first, WCAG 2.5.3), as a table widget's are: with "page" written out, the
 * three took 300 px and "Next page" wrapped alone onto a line of its own on a 320 px phone.
 */
export function Pager({ pages, label, pageCount }: { pages: Paged; label: string; pageCount?: number }) {
  if (!pages.hasNext && !pages.hasPrevious) return null;
  return (
    <nav aria-label={`${label} pages`} className="actions pager">
      <button
        type="button"
        className="secondary"
        aria-label="Previous page"
        disabled={!pages.hasPrevious}
        onClick={pages.previous}
      >
        Previous
      </button>
      <span>
        Page {pages.page}
        {pageCount === undefined ? '' : ` of ${pageCount}`}
      </span>
      <button type="button" className="secondary" aria-label="Next page" disabled={!pages.hasNext} onClick={pages.next}>
        Next
      </button>
    </nav>
  );
}
