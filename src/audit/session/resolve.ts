import { badRequest } from '../request/resolve.ts';
import type { RequestedSession } from './schema.ts';
import type { SecretField, SessionConfig, SessionStep } from './types.ts';

/** Headers a browser decides itself (or that cookies carry): a session cannot set them. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'cookie',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);

/** A requested session checked step by step, or a 400 naming the step and what its action needs. Null without one. */
export function resolveSession(requested: RequestedSession | undefined): SessionConfig | null {
  if (requested === undefined) return null;
  const steps = (requested.steps ?? []).map(resolveStep);
  const cookies = requested.cookies ?? [];
  const headers = requested.headers ?? [];
  for (const [i, header] of headers.entries())
    if (FORBIDDEN_HEADERS.has(header.name.toLowerCase()))
      throw badRequest(
        `session.headers[${i}] cannot set ${header.name}: the browser sets it${header.name.toLowerCase() === 'cookie' ? ' (send cookies as session.cookies)' : ''}`,
      );
  duplicates(cookies, 'cookies', false);
  duplicates(headers, 'headers', true);
  if (steps.length === 0 && cookies.length === 0 && headers.length === 0)
    throw badRequest('session needs steps, cookies or headers: an empty session would audit the pages signed out');
  return { steps, cookies, headers, signOut: requested.signOut ?? [] };
}

function resolveStep(step: NonNullable<RequestedSession['steps']>[number], i: number): SessionStep {
  const where = `session.steps[${i}] (${step.action})`;
  const needs = (fields: string[]) => {
    const given = Object.keys(step).filter((k) => k !== 'action');
    const extra = given.filter((k) => !fields.includes(k));
    if (extra.length) throw badRequest(`${where} takes ${fields.join(' and ')}, not ${extra.join(', ')}`);
  };
  switch (step.action) {
    case 'goto':
      needs(['url']);
      return { action: 'goto', url: absoluteHttpUrl(step.url, where) };
    case 'waitForUrl':
      needs(['url']);
      if (!step.url)
        throw badRequest(`${where} needs url: the pattern the page's URL must match (* for any characters)`);
      return { action: 'waitForUrl', url: step.url };
    case 'fill':
      needs(['selector', 'value', 'secret']);
      if (!step.selector) throw badRequest(`${where} needs selector`);
      if ((step.value === undefined) === (step.secret === undefined))
        throw badRequest(`${where} needs exactly one of value (no secret) or secret (the name of a stored secret)`);
      return step.secret !== undefined
        ? { action: 'fill', selector: step.selector, secret: step.secret }
        : { action: 'fill', selector: step.selector, value: step.value! };
    default:
      needs(['selector']);
      if (!step.selector) throw badRequest(`${where} needs selector`);
      return { action: step.action as 'click' | 'waitForSelector', selector: step.selector };
  }
}

function absoluteHttpUrl(raw: string | undefined, where: string): string {
  if (!raw) throw badRequest(`${where} needs url`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`${where} needs an absolute http or https url; got ${JSON.stringify(raw.slice(0, 100))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`${where} needs an http or https url; got ${url.protocol.replace(':', '')}`);
  if (url.username || url.password)
    throw badRequest(`${where}: the url must not carry a user name or password (fill them in with steps)`);
  return url.href;
}

function duplicates(fields: readonly SecretField[], what: string, ignoreCase: boolean): void {
  const seen = new Set<string>();
  for (const field of fields) {
    const key = ignoreCase ? field.name.toLowerCase() : field.name;
    if (seen.has(key)) throw badRequest(`session.${what} names ${field.name} twice`);
    seen.add(key);
  }
}

/** The names of the stored secrets a session uses, each once. */
export function secretNames(session: SessionConfig | null): string[] {
  if (!session) return [];
  const names = new Set<string>();
  for (const step of session.steps) if (step.action === 'fill' && 'secret' in step) names.add(step.secret);
  for (const field of [...session.cookies, ...session.headers]) names.add(field.secret);
  return [...names];
}

/** The session's goto URLs, which the address policy must allow like the audited URL. */
export function sessionUrls(session: SessionConfig | null): URL[] {
  return (session?.steps ?? []).flatMap((s) => (s.action === 'goto' ? [new URL(s.url)] : []));
}
