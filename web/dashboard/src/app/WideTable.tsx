import { type ReactNode, type Ref, useCallback, useEffect, useId, useRef, useState } from 'react';

type Edges = { left: boolean; right: boolean };
const NONE: Edges = { left: false, right: false };

/** Which sides of a scrolling box hide columns, a pixel's rounding aside. */
function hiddenEdges(el: HTMLElement): Edges {
  return { left: el.scrollLeft > 1, right: el.scrollLeft + el.clientWidth < el.scrollWidth - 1 };
}

/**
 * A table wider than a narrow screen scrolls sideways inside this region, not the whole page (WCAG 1.4.10: the rest of
 * the screen still reflows at 320 px). The region takes the keyboard focus so that it can be scrolled without a mouse
 * (axe's scrollable-region-focusable), and is named by `label`. While columns are out of view, a shadow on that edge
 * says there is more (a cut-off column alone looked like the table's end), and the region's description says it scrolls.
 */
export function WideTable({
  label,
  children,
  ref,
  tall,
}: {
  label: string;
  children: ReactNode;
  ref?: Ref<HTMLElement>;
  /** Rows past 60% of the screen's height scroll too (a query's result, the audit log), not only columns. */
  tall?: boolean;
}) {
  const box = useRef<HTMLElement | null>(null);
  const [edges, setEdges] = useState<Edges>(NONE);
  const hint = useId();

  const attach = useCallback(
    (el: HTMLElement | null) => {
      box.current = el;
      if (typeof ref === 'function') ref(el);
      else if (ref) ref.current = el;
    },
    [ref],
  );

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const update = () => {
      const now = hiddenEdges(el);
      setEdges((was) => (was.left === now.left && was.right === now.right ? was : now));
    };
    // The table grows as rows load and the screen turns: its box and the region's are watched, not only the scroll.
    const resized = new ResizeObserver(update);
    const watch = () => {
      resized.disconnect();
      resized.observe(el);
      for (const child of el.children) resized.observe(child);
    };
    const replaced = new MutationObserver(watch);
    watch();
    replaced.observe(el, { childList: true });
    el.addEventListener('scroll', update, { passive: true });
    update();
    return () => {
      el.removeEventListener('scroll', update);
      replaced.disconnect();
      resized.disconnect();
    };
  }, []);

  const scrolls = edges.left || edges.right;
  return (
    <div className="table-frame" data-more-left={edges.left || undefined} data-more-right={edges.right || undefined}>
      <section
        className={tall ? 'table-wide table-scroll' : 'table-wide'}
        tabIndex={0}
        aria-label={label}
        aria-describedby={scrolls ? hint : undefined}
        ref={attach}
      >
        {children}
      </section>
      {scrolls && (
        <span id={hint} className="visually-hidden">
          Scrolls sideways: more columns are out of view.
        </span>
      )}
    </div>
  );
}
