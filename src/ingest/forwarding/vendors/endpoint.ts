/**
 * A vendor's endpoint under a destination's `base_url`: the vendor's path after the base's path, and the base's
 * query kept (a proxy in front of a self-hosted PostHog or a Segment-compatible collector may route or
 * authorise by it). Resolving the path against the base URL as a whole would drop that query, and with it the
 * last segment of the base's path.
 */
export function vendorEndpoint(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  const directory = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const url = new URL(path, `${base.origin}${directory}`);
  url.search = base.search;
  return url;
}
