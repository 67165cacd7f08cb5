import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { hrefTo, type ParamsOf, type RouteName } from './routes.ts';

const listeners = new Set<() => void>();

function go(href: string): void {
  history.pushState(null, '', href);
  for (const l of listeners) l();
}

/** Replaces the address (no new history entry) and redraws: where the console's sign-in comes back to. */
export function replaceWith(href: string): void {
  history.replaceState(null, '', href);
  for (const l of listeners) l();
}

/** A screen's parameters (required when its path has any) and an optional query string. */
type Where<N extends RouteName> = keyof ParamsOf<N> extends never
  ? [params?: undefined, search?: Record<string, string>]
  : [params: ParamsOf<N>, search?: Record<string, string>];

/** Moves to a screen without a page load; screens re-render from the new path. */
export function navigate<N extends RouteName>(name: N, ...[params, search]: Where<N>): void {
  go(hrefTo(name, params as ParamsOf<N> | undefined, search));
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

type LinkProps<N extends RouteName> = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & {
  to: N;
  search?: Record<string, string>;
} & (keyof ParamsOf<N> extends never ? { params?: undefined } : { params: ParamsOf<N> });

/**
 * A real link to a screen of the route table (works with a middle click and the keyboard) that navigates inside the
 * app on a plain click; the link to the screen shown is marked as the current page.
 */
export function Link<N extends RouteName>({ to, params, search, ...rest }: LinkProps<N>) {
  const path = usePath();
  const href = hrefTo(to, params as ParamsOf<N> | undefined, search);
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(href);
  };
  return <a href={href} onClick={onClick} aria-current={path === href ? 'page' : undefined} {...rest} />;
}
