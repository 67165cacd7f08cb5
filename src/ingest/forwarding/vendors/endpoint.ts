/**
 * A vendor's endpoint under a destination's `base_url`: the vendor's path after the base's path, and the base's
 * query kept (a proxy in front of a self-hosted PostHog or a Segment-compatible collector may route or
 * authorise by it). Resolving the path against the base URL as a whole would drop that query, and with it the
 * last segment of the base's path.
 *
 * A base that already ends in the vendor's path is taken as the endpoint itself rather than given the path twice:
 * vendors' own SDKs and docs hand out the full endpoint (Amplitude's `serverUrl` is
 * `https://api2.amplitude.com/2/httpapi`), and `…/2/httpapi/2/httpapi` would only ever be a 404.
 */
export function vendorEndpoint(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  let directory = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const own = `/${path.replace(/\/$/, '')}/`;
  if (directory.endsWith(own)) directory = directory.slice(0, 1 - own.length);
  const url = new URL(path, `${base.origin}${directory}`);
  url.search = base.search;
  return url;
}
