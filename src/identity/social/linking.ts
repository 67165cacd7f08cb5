import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { LoginFailed } from '../../kit/upstream-login/provider.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { escapeHtml, page } from '../web/layout.ts';
import { html, pageLanguage } from '../web/respond.ts';
import type { AccountGuard, AccountPage } from '../access/account-guard.ts';
import { signedIn, type SignedIn } from '../sessions/signed-in.ts';
import { signInLink } from '../web/sign-in-link.ts';
import { callbackUrl, type SocialProvider } from './registry.ts';
import { beginUpstreamLogin, upstreamCookie, type PendingUpstreamLogin } from './state.ts';
import { linkedAccounts, linkToPerson, unlinkFromPerson } from './account-links.ts';
import { linkedAccountsPage } from './linked-page.ts';

export interface LinkedAccountDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
  providers: Map<string, SocialProvider>;
}

export const LINKED: AccountPage = { path: '/account/linked', purpose: 'linked', name: 'the linked accounts page' };

/** A page about a link that did not happen, with the way back to the linked accounts page. */
function linkRefused(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return html(
    reply,
    status,
    page({
      title,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/account/linked">Back to linked accounts</a></p>`,
    }),
  );
}

/** The linked accounts page: the person's social accounts, a Link button per configured provider; a notice or an error. */
export async function overview(
  deps: LinkedAccountDeps,
  guard: AccountGuard,
  reply: FastifyReply,
  who: SignedIn,
  status = 200,
  extra: { notice?: string | undefined; error?: string } = {},
): Promise<FastifyReply> {
  return html(
    reply,
    status,
    linkedAccountsPage({
      accountLabel: who.account.identifier,
      csrf: guard.csrf(who, LINKED),
      linked: await linkedAccounts(deps.db, who.account.id),
      providers: [...deps.providers].map(([id, p]) => ({ id, name: p.name })),
      ...extra,
      loc: pageLanguage(reply.request, reply),
    }),
  );
}

/** "Link <provider>": off to the provider's own sign-in, which comes back through its one callback (finishLinking). */
export async function startLinking(
  deps: LinkedAccountDeps,
  guard: AccountGuard,
  request: FastifyRequest<{ Params: { provider: string }; Body: { csrf?: string | undefined } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const who = guard.form(request, reply, LINKED);
  if (!who) return reply;
  const upstream = deps.providers.get(request.params.provider);
  if (!upstream)
    return linkRefused(
      reply,
      404,
      'Sign-in method not offered',
      'This sign-in method is not configured here, so it cannot be linked.',
    );
  const pending = await beginUpstreamLogin(
    deps.db,
    deps.secretKey,
    request.params.provider,
    LINKED.path,
    who.account.id,
  );
  let to: URL;
  try {
    to = await upstream.provider.authorizationUrl(pending, callbackUrl(deps.issuer, request.params.provider));
  } catch (err) {
    request.log.warn(
      { provider: request.params.provider, err: (err as Error).message },
      'account linking could not start',
    );
    return linkRefused(
      reply,
      400,
      `${upstream.name} is not answering`,
      `Linking ${upstream.name} is not possible right now. Try again later.`,
    );
  }
  return reply
    .header('set-cookie', upstreamCookie(pending.state))
    .header('cache-control', 'no-store')
    .redirect(to.href, 303);
}

/** Unlink, unless the account is the person's last way to sign in (409 on the page). */
export async function unlink(
  deps: LinkedAccountDeps,
  guard: AccountGuard,
  request: FastifyRequest<{ Params: { identityId: string }; Body: { csrf?: string | undefined } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const who = guard.form(request, reply, LINKED);
  if (!who) return reply;
  const result = await unlinkFromPerson(deps.db, who.account.id, request.params.identityId, [...deps.providers.keys()]);
  if (result === 'not_found')
    return linkRefused(
      reply,
      404,
      'Linked account not found',
      'You have no linked account with this id: it may have been unlinked already.',
    );
  if (result === 'last') {
    return overview(deps, guard, reply, who, 409, {
      error:
        'This account is your only way to sign in, so it stays linked. Add a passkey on the sign-in security page, or link another account, first.',
    });
  }
  return reply.header('cache-control', 'no-store').redirect('/account/linked?done=unlinked', 303);
}

/**
 * The provider's callback for a link started on the linked accounts page (the provider knows one redirect URI, so
 * sign-ins and links come back the same way; the LoginState says which). The browser must still be signed in as the
 * person who started it.
 */
export async function finishLinking(
  deps: Pick<LinkedAccountDeps, 'db' | 'accounts' | 'issuer'>,
  request: FastifyRequest<{ Querystring: { error?: string | undefined } }>,
  reply: FastifyReply,
  pending: PendingUpstreamLogin,
  upstream: SocialProvider,
): Promise<FastifyReply> {
  const who = await signedIn(deps.db, deps.accounts, request);
  if (!who) {
    return html(
      reply,
      401,
      page({
        title: 'Signed out',
        body: `<h1>Signed out</h1>\n<p>Your session ended before ${escapeHtml(upstream.name)} answered, so nothing was linked.</p>\n<p><a href="${escapeHtml(signInLink(LINKED.path))}">Sign in again</a></p>`,
      }),
    );
  }
  if (who.account.id !== pending.linkPrincipalId)
    return linkRefused(
      reply,
      403,
      'Nothing linked',
      'This browser is now signed in as someone else than the person who started linking. Start again.',
    );
  if (request.query.error)
    return linkRefused(
      reply,
      400,
      `${upstream.name} did not link`,
      `${upstream.name} did not sign you in (${request.query.error}), so nothing was linked.`,
    );
  let result;
  try {
    const identity = await upstream.provider.finish(
      new URL(request.url, deps.issuer),
      pending,
      callbackUrl(deps.issuer, pending.provider),
    );
    result = await linkToPerson(deps.db, pending.provider, identity, who.account.id);
  } catch (err) {
    if (!(err instanceof LoginFailed)) throw err;
    request.log.info({ provider: pending.provider, reason: err.message }, 'account linking refused');
    return linkRefused(reply, 400, 'Nothing linked', err.message);
  }
  if (result === 'taken') {
    return linkRefused(
      reply,
      409,
      'Account linked to someone else',
      `This ${upstream.name} account already signs in another account here, so it cannot be linked to yours. Use another ${upstream.name} account, or unlink it from the other account first.`,
    );
  }
  return reply.header('cache-control', 'no-store').redirect(`${LINKED.path}?done=${result}`, 303);
}
