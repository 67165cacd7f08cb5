import { HttpError } from '../../kit/errors.ts';

/** Hosts a logo may be served from over plain http: the developer's own machine only. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/** True when `value` is a logo address the sign-in pages may show: https, or http on the local machine (development). */
export function isLogoUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
}

/**
 * An app's or organization's logo, shown as an image on its sign-in and consent pages: only an https address (http on
 * localhost for development) is accepted, so `javascript:`, `data:` and other schemes never reach a page; 400 otherwise.
 * The page's CSP (web/respond.ts) loads images from https only, never scripts.
 */
export function checkLogoUrl(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  if (!isLogoUrl(value))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'logo_url must be an absolute https URL (http only on localhost), without user name or password',
    );
  return value;
}
