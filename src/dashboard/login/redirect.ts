/**
 * Whether `target` may receive the tokens after a login: an absolute http(s) URL whose origin is an
 * allowed origin, or which starts with an allowed URL prefix that ends in `/`. Compared on parsed
 * URLs, so `https://dash.example.com.evil.test` or `https://dash.example.com@evil.test` never pass.
 */
export function redirectAllowed(target: string, allowList: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.username || url.password) return false;
  for (const entry of allowList) {
    let allowed: URL;
    try {
      allowed = new URL(entry);
    } catch {
      continue;
    }
    if (allowed.origin !== url.origin) continue;
    const prefix = allowed.pathname;
    if (
      prefix === '/' ||
      url.pathname === prefix ||
      url.pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)
    )
      return true;
  }
  return false;
}
