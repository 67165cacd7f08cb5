import type { AccessRule } from '../../kit/access.ts';
import { ADMIN_SCOPE } from '../config.ts';
import { LOGIN_COOKIE } from '../sessions/cookie.ts';

export { PUBLIC } from '../../kit/access.ts';

/**
 * Who may call each of identity's routes, declared on the route (`config: { access }`) and enforced by the kit before
 * the body is read (src/kit/access.ts). The checks behind these kinds are in checks.ts; docs/identity.md lists them.
 */

/** The management API: an access token with `scope` (the `admin` scope survives only for platform admins) or IDENTITY_ADMIN_TOKEN. */
export interface AdminRule extends AccessRule {
  readonly kind: 'admin';
  readonly scope: string;
}
export const ADMIN: AdminRule = Object.freeze({ kind: 'admin', scope: ADMIN_SCOPE });

/** The marketplace and subscriptions: a person's access token (any app, any scope), a platform admin's, or IDENTITY_ADMIN_TOKEN. */
export const MARKET: AccessRule = Object.freeze({ kind: 'market' });

/**
 * What a resource server asks about the principals whose tokens it takes: HTTP Basic of an active confidential app
 * registered as a resource server (`resource_server`), the apps that may introspect other apps' tokens.
 */
export const RESOURCE_SERVER: AccessRule = Object.freeze({ kind: 'resource-server' });

/**
 * SCIM 2.0 provisioning under /scim/v2: the bearer token of a SCIM connection (an enterprise directory), nothing else.
 * Refused in SCIM's error shape.
 */
export const SCIM: AccessRule = Object.freeze({ kind: 'scim' });

/** The signed-in person's own API (invitations, their password, their agents): their access token, never an agent's. */
export const PERSON: AccessRule = Object.freeze({ kind: 'person' });

/**
 * A page or form of the signed-in person: identity's browser login session (`__Host-svc_login`). Signed out, a page
 * (`sign-in`) sends the browser through the sign-in and back to `path`; a posted form (`page`) answers a 401 page
 * with that link, since re-posting after signing in would need a fresh CSRF token anyway; a script's fetch (`json`)
 * answers 401 `{error: "login_required"}`.
 */
export interface SignedInRule extends AccessRule {
  readonly kind: 'signed-in';
  readonly path: string;
  readonly refusal: 'sign-in' | 'page' | 'json';
}

export function signedInPage(path: string): SignedInRule {
  return Object.freeze({ kind: 'signed-in', path, refusal: 'sign-in' });
}

export function signedInForm(path: string): SignedInRule {
  return Object.freeze({ kind: 'signed-in', path, refusal: 'page' });
}

export function signedInFetch(path: string): SignedInRule {
  return Object.freeze({ kind: 'signed-in', path, refusal: 'json' });
}

/** The OpenAPI security scheme of the signed-in pages: the browser's login session cookie. */
export const LOGIN_SESSION_SCHEME = {
  loginSession: {
    type: 'apiKey',
    in: 'cookie',
    name: LOGIN_COOKIE,
    description:
      "identity's browser login session, set by signing in at /signin. Signed out, a page answers 303 to the sign-in and back; a form, a 401 page.",
  },
};

/** The OpenAPI `security` of a route that declares a signed-in rule. */
export const SIGNED_IN_SECURITY: Record<string, string[]>[] = [{ loginSession: [] }];
