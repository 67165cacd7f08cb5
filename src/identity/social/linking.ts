import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { LoginFailed } from '../../kit/upstream-login/provider.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { escapeHtml, page } from '../web/layout.ts';
import { html, pageLanguage } from '../web/respond.ts';
import type { Messages } from '../web/i18n/en.ts';
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
function linkRefused(
  reply: FastifyReply,
  status: number,
  say: (t: Messages['social']) => [string, string],
): FastifyReply {
  const { lang, t } = pageLanguage(reply.request, reply);
  const [title, message] = say(t.social);
  return html(
    reply,
    status,
    page({
      lang,
      title,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/account/linked">${escapeHtml(t.social.backLinked)}</a></p>`,
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
  if (!upstream) return linkRefused(reply, 404, (t) => [t.notOfferedTitle, t.notOfferedLink]);
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
    return linkRefused(reply, 400, (t) => [t.notAnsweringTitle(upstream.name), t.linkNotAnswering(upstream.name)]);
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
  if (result === 'not_found') return linkRefused(reply, 404, (t) => [t.linkedNotFoundTitle, t.linkedNotFound]);
  if (result === 'last')
    return overview(deps, guard, reply, who, 409, { error: pageLanguage(request, reply).t.social.lastWay });
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
    const { lang, t } = pageLanguage(request, reply);
    return html(
      reply,
      401,
      page({
        lang,
        title: t.errors.signedOutTitle,
        body: `<h1>${escapeHtml(t.errors.signedOutTitle)}</h1>\n<p>${escapeHtml(t.social.signedOut(upstream.name))}</p>\n<p><a href="${escapeHtml(signInLink(LINKED.path))}">${escapeHtml(t.errors.signInAgain)}</a></p>`,
      }),
    );
  }
  if (who.account.id !== pending.linkPrincipalId)
    return linkRefused(reply, 403, (t) => [t.nothingLinkedTitle, t.someoneElse]);
  if (request.query.error)
    return linkRefused(reply, 400, (t) => [
      t.didNotLinkTitle(upstream.name),
      t.didNotLink(upstream.name, String(request.query.error)),
    ]);
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
    // The upstream protocol's own failure, as it is.
    return linkRefused(reply, 400, (t) => [t.nothingLinkedTitle, err.message]);
  }
  if (result === 'taken') {
    return linkRefused(reply, 409, (t) => [t.takenTitle, t.taken(upstream.name)]);
  }
  return reply.header('cache-control', 'no-store').redirect(`${LINKED.path}?done=${result}`, 303);
}
