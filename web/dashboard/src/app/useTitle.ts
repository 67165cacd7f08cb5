import { useEffect } from 'react';

/** Each screen names the page (WCAG 2.4.2) and moves focus to its heading, so a screen reader announces the change. */
export function useScreen(title: string): void {
  useEffect(() => {
    document.title = `${title} · Dashboards`;
    const h1 = document.querySelector<HTMLElement>('main h1');
    if (h1 && document.activeElement === document.body) {
      h1.tabIndex = -1;
      h1.focus();
    }
  }, [title]);
}
