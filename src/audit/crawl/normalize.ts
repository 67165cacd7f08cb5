/**
 * The form a crawl compares URLs in: absolute, http(s) only, fragment dropped, an empty path as `/`
 * (scheme and host are lower-cased and default ports dropped by URL itself). Null for anything else.
 */
export function normalizeUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  return url.href;
}

export function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}
