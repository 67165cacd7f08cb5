import { errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import { ORGANIZATION_PARAM, type OrganizationTokens } from '../organizations/token-scope.ts';
import { secondFactorRequired } from '../apps/second-factor-policy.ts';
import { LOGIN_COOKIE } from '../sessions/cookie.ts';
import { findLoginSession } from '../sessions/store.ts';
import { readCookie } from '../web/cookies.ts';

/** A scope request may only hold scopes the server knows: the provider itself would silently drop the others. */
function knownScopesCheck(known: ReadonlySet<string>) {
  return new interactionPolicy.Check(
    'known_scopes',
    'only known scopes may be requested',
    'invalid_scope',
    (ctx: KoaContextWithOIDC) => {
      // The provider has already dropped unknown scopes from its params, so the request itself is read.
      const raw =
        ctx.oidc.route === 'authorization'
          ? ctx.method === 'POST'
            ? ctx.oidc.body?.scope
            : ctx.query?.scope
          : ctx.oidc.params?.scope;
      const requested: string[] = String(raw ?? '')
        .split(' ')
        .filter(Boolean);
      // The contract makes scope required: without one the provider would go on to sign-in and issue a code for nothing.
      if (!requested.length) throw new errors.InvalidRequest("missing required parameter 'scope'");
      const unknown = requested.filter((s) => !known.has(s));
      if (unknown.length) throw new errors.InvalidScope('requested scope is not known', unknown.join(' '));
      return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    },
  );
}

/** The service's own login session (__Host-svc_login) must be live and for the provider session's principal. */
function loginSessionCheck(db: Database) {
  return new interactionPolicy.Check(
    'login_session',
    'a live login session is required',
    'login_required',
    async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId) return interactionPolicy.Check.REQUEST_PROMPT;
      if (ctx.oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const session = await findLoginSession(db, readCookie(ctx.get('cookie'), LOGIN_COOKIE));
      return session?.principalId === accountId
        ? interactionPolicy.Check.NO_NEED_TO_PROMPT
        : interactionPolicy.Check.REQUEST_PROMPT;
    },
  );
}

/**
 * A session signed in without a second step does not carry a person into an app (or an organization) that requires
 * one: the sign-in form is shown again, whose second step then follows (apps/second-factor-policy.ts).
 */
function secondFactorCheck(db: Database) {
  return new interactionPolicy.Check(
    'second_factor',
    'this application requires a second factor',
    'login_required',
    async (ctx: KoaContextWithOIDC) => {
      if (!ctx.oidc.session?.accountId || ctx.oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const session = await findLoginSession(db, readCookie(ctx.get('cookie'), LOGIN_COOKIE));
      if (!session || session.secondFactorAt) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      return (await secondFactorRequired(db, ctx.oidc.params?.client_id, ctx.oidc.params?.[ORGANIZATION_PARAM]))
        ? interactionPolicy.Check.REQUEST_PROMPT
        : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    },
  );
}

/** The provider's base policy, with known scopes and a live login session required to sign in, and the organization checked at consent. */
export function interactionPolicyFor(db: Database, known: ReadonlySet<string>, orgs: OrganizationTokens) {
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.unshift(knownScopesCheck(known));
  login.checks.push(loginSessionCheck(db), secondFactorCheck(db));
  policy.get('consent')!.checks.unshift(orgs.authorizationCheck());
  return policy;
}
