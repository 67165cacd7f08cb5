import { useEffect } from 'react';

/**
 * The web app's name in its banner and every page title: the platform's console, since its sections are the dashboards
 * and each service of the platform (docs/decisions.md). A dashboard shared by a public link is seen by people outside
 * the platform: its frame names what they are looking at.
 */
export const PRODUCT = 'Platform console';
export const PUBLIC_PRODUCT = 'Shared dashboard';

/**
 * Each screen names the page (WCAG 2.4.2), "Users · Platform console", and moves focus to its heading, so a screen
 * reader announces the change. `product` is the frame's name after the screen's.
 */
export function useScreen(title: string, product: string = PRODUCT): void {
  useEffect(() => {
    document.title = `${title} · ${product}`;
    const h1 = document.querySelector<HTMLElement>('main h1');
    if (h1 && document.activeElement === document.body) {
      h1.tabIndex = -1;
      h1.focus();
    }
  }, [title, product]);
}
