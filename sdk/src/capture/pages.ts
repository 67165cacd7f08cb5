import type { Emit } from './emit.ts';
import { withoutQuery } from './url.ts';

/**
 * `page.view` now and after every single-page-app navigation (History API and back/forward), and
 * `page.leave` with the time spent (`duration_ms`) before the next view or when the page is hidden for good.
 */
export function capturePages(emit: Emit): () => void {
  let path = '';
  let viewed = { 'page.path': '', 'page.url': '', 'page.title': '' };
  let since = 0;
  let left = false;
  // By the time a navigation is seen the location has changed, so the leave names the page it was made on.
  const leave = () => {
    if (!path || left) return;
    left = true;
    emit('page.leave', { ...viewed, duration_ms: Math.round(performance.now() - since) });
  };
  const view = () => {
    const next = location.pathname + location.search;
    if (next === path && !left) return;
    if (path) leave();
    path = next;
    viewed = { 'page.path': location.pathname, 'page.url': location.origin + location.pathname, 'page.title': document.title };
    since = performance.now();
    left = false;
    emit('page.view', { 'page.referrer': withoutQuery(document.referrer) });
  };
  const history = window.history;
  const push = history.pushState;
  const replace = history.replaceState;
  history.pushState = function (...args: Parameters<History['pushState']>) {
    push.apply(this, args);
    view();
  };
  history.replaceState = function (...args: Parameters<History['replaceState']>) {
    replace.apply(this, args);
    view();
  };
  // A page restored from the back/forward cache is a new view.
  const onPageShow = (e: PageTransitionEvent) => {
    if (e.persisted) {
      left = true;
      view();
    }
  };
  addEventListener('popstate', view);
  addEventListener('pagehide', leave);
  addEventListener('pageshow', onPageShow);
  view();
  return () => {
    history.pushState = push;
    history.replaceState = replace;
    removeEventListener('popstate', view);
    removeEventListener('pagehide', leave);
    removeEventListener('pageshow', onPageShow);
  };
}
