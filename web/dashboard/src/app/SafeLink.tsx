import type { ReactNode } from 'react';

const SAFE = new Set(['http:', 'https:', 'mailto:']);

/** Whether a URL typed by someone else may become a link: an absolute http, https or mailto address, nothing else. */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  const parsed = URL.parse(url.trim());
  return parsed && SAFE.has(parsed.protocol) ? parsed.href : undefined;
}

/**
 * A link to an address that came from outside (an app's logo, an audited page, an event's URL): an `<a>` only for
 * http, https and mailto, so a `javascript:` or `data:` URL is never clickable; anything else is shown as plain text.
 * Opened in a new tab without the console as its opener or referrer.
 */
export function SafeLink({ href, children }: { href: string | null | undefined; children?: ReactNode }) {
  const safe = safeHref(href);
  const text = children ?? href ?? '';
  if (!safe) return <span className="unsafe-url">{text}</span>;
  return (
    <a href={safe} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  );
}
