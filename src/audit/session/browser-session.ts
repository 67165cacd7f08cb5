import type { BrowserContext, Route } from 'playwright-core';
import { AuditFailedError } from '../engine/audit-errors.ts';
import type { SecretValues, SessionConfig } from './types.ts';

/**
 * Gives the audit's browser context the session's cookies (for the audited URL's site) and headers (for its
 * origin only). A header is added by fetching the request ourselves without following redirects, so a redirect to
 * another origin is a new request that goes out without it: Playwright's own header override would carry it along.
 * The fetch goes through the context's egress proxy like every other request of the audit (Playwright tunnels it, plain
 * http too: egress-tunnel.ts answers a tunnel it does not open as the proxy answers a plain request).
 */
export async function applySessionFields(
  context: BrowserContext,
  session: SessionConfig,
  start: string,
  secrets: SecretValues,
): Promise<void> {
  const origin = new URL(start).origin;
  if (session.cookies.length > 0)
    await context.addCookies(
      session.cookies.map((c) => ({ name: c.name, value: secretValue(secrets, c.secret), url: `${origin}/` })),
    );
  if (session.headers.length === 0) return;
  const extra = Object.fromEntries(session.headers.map((h) => [h.name.toLowerCase(), secretValue(secrets, h.secret)]));
  await context.route(
    (url) => url.origin === origin,
    async (route: Route) => {
      try {
        const response = await route.fetch({ headers: { ...route.request().headers(), ...extra }, maxRedirects: 0 });
        await route.fulfill({ response });
      } catch {
        // The page or context went away meanwhile (or the site could not be reached): the request fails as it would have.
        await route.abort('failed').catch(() => {});
      }
    },
  );
}

/** A secret's value; a name without one stops the audit (the caller's store lost it after the job was queued). */
export function secretValue(secrets: SecretValues, name: string): string {
  const value = secrets.get(name);
  if (value === undefined)
    throw new AuditFailedError(
      `the session uses the secret "${name}", which is not stored for this credential (PUT /api/v1/secrets/${name})`,
      false,
    );
  return value;
}
