import type { Emit, Stamp } from './emit.ts';
import { withoutQuery } from './url.ts';

/**
 * How long a view made by a navigation waits for the app to name the new page. Routers call pushState first and
 * set `document.title` when the new route renders (after an effect, or once its data arrived), so the title read
 * at pushState is the previous page's.
 */
export const TITLE_WAIT_MS = 1000;

/**
 * `page.view` now and after every single-page-app navigation (History API and back/forward), and
 * `page.leave` with the time spent (`duration_ms`) before the next view or when the page is hidden for good.
 *
 * A navigation's view keeps the time and sequence of the navigation but is handed over once the title changes
 * (or after TITLE_WAIT_MS, or sooner when the page is hidden, the app navigates again or flushes: `settle`),
 * so it carries the new page's title.
 */
export function capturePages(emit: Emit, stamp: () => Stamp): { stop(): void; settle(): void } {
  let path = '';
  let viewed = { 'page.path': '', 'page.url': '', 'page.title': '' };
  let since = 0;
  let left = false;
  let pending: (() => void) | undefined;
  const settle = () => pending?.();
  // By the time a navigation is seen the location has changed, so the leave names the page it was made on.
  const leave = () => {
    settle();
    if (!path || left) return;
    left = true;
    emit('page.leave', { ...viewed, duration_ms: Math.round(performance.now() - since) });
  };
  const view = (navigated: boolean) => {
    const next = location.pathname + location.search;
    if (next === path && !left) return;
    if (path) leave();
    path = next;
    const at = stamp();
    const where = { 'page.path': location.pathname, 'page.url': location.origin + location.pathname };
    const referrer = withoutQuery(document.referrer);
    const previousTitle = viewed['page.title'];
    since = performance.now();
    left = false;
    let observer: MutationObserver | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const send = () => {
      observer?.disconnect();
      clearTimeout(timer);
      pending = undefined;
      viewed = { ...where, 'page.title': document.title };
      emit('page.view', { ...viewed, 'page.referrer': referrer }, at);
    };
    // A title already changed (set before pushState, or a page restored whole) is the new page's.
    if (!navigated || document.title !== previousTitle) return send();
    pending = send;
    // The whole document: a framework may put <title> in the body, or replace the element rather than its text.
    observer = new MutationObserver(() => {
      if (document.title !== previousTitle) send();
    });
    observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true });
    timer = setTimeout(send, TITLE_WAIT_MS);
  };
  const navigate = () => view(true);
  const history = window.history;
  const push = history.pushState;
  const replace = history.replaceState;
  history.pushState = function (...args: Parameters<History['pushState']>) {
    push.apply(this, args);
    navigate();
  };
  history.replaceState = function (...args: Parameters<History['replaceState']>) {
    replace.apply(this, args);
    navigate();
  };
  // A page restored from the back/forward cache is a new view.
  const onPageShow = (e: PageTransitionEvent) => {
    if (e.persisted) {
      left = true;
      view(false);
    }
  };
  // Runs before the client's own listener, which sends what is queued as the page is hidden.
  const onHidden = () => {
    if (document.visibilityState === 'hidden') settle();
  };
  addEventListener('popstate', navigate);
  addEventListener('pagehide', leave);
  addEventListener('pageshow', onPageShow);
  document.addEventListener('visibilitychange', onHidden);
  view(false);
  return {
    settle,
    stop() {
      settle();
      history.pushState = push;
      history.replaceState = replace;
      removeEventListener('popstate', navigate);
      removeEventListener('pagehide', leave);
      removeEventListener('pageshow', onPageShow);
      document.removeEventListener('visibilitychange', onHidden);
    },
  };
}
