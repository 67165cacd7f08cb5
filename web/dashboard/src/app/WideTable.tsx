import type { ReactNode, Ref } from 'react';

/**
 * A table wider than a narrow screen scrolls sideways inside this region, not the whole page (WCAG 1.4.10: the rest of
 * the screen still reflows at 320 px). The region takes the keyboard focus so that it can be scrolled without a mouse.
 */
export function WideTable({ label, children, ref }: { label: string; children: ReactNode; ref?: Ref<HTMLElement> }) {
  return (
    <section className="table-wide" tabIndex={0} aria-label={label} ref={ref}>
      {children}
    </section>
  );
}
