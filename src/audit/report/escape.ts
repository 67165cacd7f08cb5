const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value made inert: page content in a report (markup, titles, URLs) is hostile input. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** An escaped href for http(s) URLs only; anything else (javascript:, data:) is not made a link. */
export function safeHref(value: string): string | undefined {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? escapeHtml(u.href) : undefined;
  } catch {
    return undefined;
  }
}

/** A link when the URL is http(s), else the text alone. */
export function link(url: string, text: string = url): string {
  const href = safeHref(url);
  return href ? `<a href="${href}">${escapeHtml(text)}</a>` : escapeHtml(text);
}
