import { openSealedString, seal } from '../../../kit/crypto.ts';
import { DestinationInputError } from './errors.ts';

/**
 * A destination's URL is treated as a secret: a Slack or Zapier webhook URL lets whoever knows it post. Only the
 * redacted form is stored in clear and shown; the whole URL is sealed, bound to the destination id under its own
 * context so it cannot be swapped with the sealed credentials of the same row.
 */
function urlContext(id: string): string {
  return `ingest.destination-url:${id}`;
}

export function checkBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new DestinationInputError('base_url: must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new DestinationInputError('base_url: must be an absolute http or https URL');
  if (u.username || u.password)
    throw new DestinationInputError('base_url: must not carry credentials; give them in credentials');
  // A fragment is never sent, so one here is a pasted address (a vendor's web app, routed by its fragment) rather than an endpoint.
  if (u.href.includes('#'))
    throw new DestinationInputError('base_url: must not have a fragment (#…); it is never sent to the destination');
  return u.href;
}

/**
 * Scheme, host and port, then `/` when the URL has nothing more or `/…` when it has a path, query or fragment.
 * Applying it to its own output gives the same text, so rows already redacted and rows still in clear read alike.
 */
export function redactBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return '…';
  }
  if (u.origin === 'null') return '…';
  return `${u.origin}/${u.pathname === '/' && !u.search && !u.hash ? '' : '…'}`;
}

export function sealBaseUrl(key: Buffer, id: string, url: string): string {
  return seal(key, url, urlContext(id));
}

export function openBaseUrl(key: Buffer, id: string, sealed: string): string {
  return openSealedString(key, sealed, urlContext(id));
}
