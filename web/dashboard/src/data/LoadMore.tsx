import type { RefObject } from 'react';

/** What LoadMore needs of an infinite query (useListPages). */
interface More {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<{ hasNextPage: boolean }>;
}

/**
 * The end of a list read a page at a time: how many items are shown (a status region, so a screen reader hears the
 * count grow) and "Load more" while the server has more. When the last page arrives the button goes, and the focus it
 * had moves to `after` (the list), not to the top of the page.
 */
export function LoadMore({
  list,
  shown,
  what,
  after,
}: {
  list: More;
  shown: number;
  what: string;
  after: RefObject<HTMLElement | null>;
}) {
  const more = async () => {
    const r = await list.fetchNextPage();
    if (!r.hasNextPage) after.current?.focus();
  };
  return (
    <div className="actions load-more">
      <p role="status" className="status">
        {list.hasNextPage ? `${shown} ${what} shown; more follow.` : `All ${shown} ${what} shown.`}
      </p>
      {list.hasNextPage && (
        <button type="button" className="secondary" disabled={list.isFetchingNextPage} onClick={() => void more()}>
          Load more {what}
        </button>
      )}
    </div>
  );
}
