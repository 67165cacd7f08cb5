import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { LoginFailed } from '../../kit/upstream-login/provider.ts';
import { presentToProvider, type ProviderHolder } from '../oidc/mount.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { noteLogin } from '../principals/store.ts';
import { startLoginSession } from '../sessions/store.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { escapeHtml, page } from '../web/layout.ts';
import { html, pageLanguage, sameOrigin } from '../web/respond.ts';
import type { Messages } from '../web/i18n/en.ts';
import type { SecondFactor } from '../mfa/interaction.ts';
import { callbackUrl, type SocialProvider } from './registry.ts';
import {
  beginUpstreamLogin,
  clearedUpstreamCookie,
  consumeUpstreamLogin,
  UPSTREAM_COOKIE,
  upstreamCookie,
} from './state.ts';
import { resolvePrincipal, SignInRefused } from './link.ts';
import { finishLinking } from './linking.ts';

export interface SocialDeps {
  db: Database;
  secretKey: Buffer;
  holder: ProviderHolder;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
  loginSessionTtl: number;
  providers: Map<string, SocialProvider>;
  signup: 'create' | 'refuse';
  /** Providers besides the configured ones, found by id at each use (organizations' enterprise SSO connectors). */
  moreProviders?: (id: string) => Promise<SocialProvider | undefined>;
  /** The same second step a password sign-in has; without it a social sign-in finishes at once. */
  secondFactor?: SecondFactor;
}

const INTERACTION_PATH = /^\/interaction\/[A-Za-z0-9_-]{1,100}$/;

/** The CSRF binding of the provider buttons on the sign-in page of interaction `jti`. */
export const upstreamCsrfBinding = (jti: string) => `upstream:${jti}`;

/** A refusal page in the request's language: `say` picks its title and text from the catalogue. */
function refusedPage(
  reply: FastifyReply,
  status: number,
  say: (t: Messages) => [string, string],
  back?: string,
): FastifyReply {
  const { lang, t } = pageLanguage(reply.request, reply);
  const [title, message] = say(t);
  return html(
    reply,
    status,
    page({
      lang,
      title,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>${back ? `\n<p><a href="${escapeHtml(back)}">${escapeHtml(t.social.back)}</a></p>` : ''}`,
    }),
  );
}

/**
 * A "Continue with …" button: the sign-in request checked (same origin, its CSRF token), then off to the provider with a
 * fresh state, PKCE challenge and nonce kept as a LoginState.
 */
export async function startSocialSignIn(
  deps: SocialDeps,
  request: FastifyRequest<{ Params: { uid: string; provider: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { uid, provider: providerId } = request.params;
  const upstream = await providerOf(deps, providerId);
  if (!upstream)
    return refusedPage(
      reply,
      404,
      (t) => [t.social.notOfferedTitle, t.social.notOffered],
      `/interaction/${encodeURIComponent(uid)}`,
    );
  if (!sameOrigin(request, deps.issuer))
    return refusedPage(reply, 403, (t) => [t.errors.refused, t.errors.anotherSite]);
  presentToProvider(request, new URL(deps.issuer));
  let jti: string;
  try {
    const d = await deps.holder.current.interactionDetails(request.raw, reply.raw);
    if (d.uid !== uid || d.prompt.name !== 'login') throw new Error('not a sign-in');
    jti = d.jti;
  } catch {
    return refusedPage(reply, 400, (t) => [t.errors.requestExpiredTitle, t.errors.requestExpired]);
  }
  if (!deps.csrf.verify(upstreamCsrfBinding(jti), (request.body as { csrf?: unknown }).csrf)) {
    return refusedPage(
      reply,
      403,
      (t) => [t.errors.refused, t.errors.expiredForm('sign-in')],
      `/interaction/${encodeURIComponent(uid)}`,
    );
  }
  return sendToProvider(deps, request, reply, uid, providerId, upstream);
}

/** The provider an id names: a configured one, else an organization's connector. */
async function providerOf(deps: SocialDeps, id: string): Promise<SocialProvider | undefined> {
  return deps.providers.get(id) ?? (await deps.moreProviders?.(id));
}

/**
 * Off to the provider for interaction `uid`, with a fresh state, PKCE challenge and nonce kept as a LoginState (the
 * caller checked the request: a button's CSRF token, or the sign-in form's for an address bound to enterprise SSO).
 */
export async function sendToProvider(
  deps: SocialDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  providerId: string,
  upstream: SocialProvider,
): Promise<FastifyReply> {
  const pending = await beginUpstreamLogin(deps.db, deps.secretKey, providerId, `/interaction/${uid}`);
  let to: URL;
  try {
    to = await upstream.provider.authorizationUrl(pending, callbackUrl(deps.issuer, providerId));
  } catch (err) {
    request.log.warn({ provider: providerId, err: (err as Error).message }, 'social sign-in could not start');
    return refusedPage(
      reply,
      400,
      (t) => [t.social.notAnsweringTitle(upstream.name), t.social.notAnswering(upstream.name)],
      `/interaction/${encodeURIComponent(uid)}`,
    );
  }
  return reply
    .header('set-cookie', upstreamCookie(pending.state))
    .header('cache-control', 'no-store')
    .redirect(to.href, 303);
}

/**
 * The provider's way back: the state consumed once (and only by the browser it was sent away with), the code, PKCE and
 * (for OpenID issuers) the ID token and its nonce checked, the principal found or made; a link started on
 * /account/linked is finished there instead.
 */
export async function socialCallback(
  deps: SocialDeps,
  request: FastifyRequest<{
    Params: { provider: string };
    Querystring: { state?: string; code?: string; error?: string };
  }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const providerId = request.params.provider;
  const upstream = await providerOf(deps, providerId);
  reply.header('set-cookie', clearedUpstreamCookie());
  if (!upstream) return refusedPage(reply, 404, (t) => [t.social.notOfferedTitle, t.social.notOffered]);
  const state = request.query.state ?? '';
  const cookie = readCookie(request.headers.cookie, UPSTREAM_COOKIE);
  // The state must come back to the browser that was sent away with it: otherwise someone could
  // hand a victim a callback URL of their own sign-in (login CSRF).
  const pending =
    cookie && cookie === state ? await consumeUpstreamLogin(deps.db, deps.secretKey, providerId, state) : undefined;
  if (pending?.linkPrincipalId) return finishLinking(deps, request, reply, pending, upstream);
  if (!pending || !INTERACTION_PATH.test(pending.redirectUrl)) {
    return refusedPage(reply, 400, (t) => [t.social.expiredTitle, t.social.expired(upstream.name)]);
  }
  const back = pending.redirectUrl;
  if (request.query.error)
    return refusedPage(
      reply,
      400,
      (t) => [t.social.cancelledTitle(upstream.name), t.social.cancelled(upstream.name, String(request.query.error))],
      back,
    );
  const here = new URL(request.url, deps.issuer);
  let resolved;
  try {
    const who = await upstream.provider.finish(here, pending, callbackUrl(deps.issuer, providerId));
    resolved = upstream.resolve
      ? await upstream.resolve(deps.db, who)
      : await resolvePrincipal(deps.db, providerId, who, deps.signup);
  } catch (err) {
    if (err instanceof LoginFailed || err instanceof SignInRefused) {
      request.log.info({ provider: providerId, reason: err.message }, 'social sign-in refused');
      // A refusal of ours is said in the page's language; the upstream protocol's own failure, as it is.
      const said = err instanceof SignInRefused ? err.say : () => err.message;
      return refusedPage(reply, 400, (t) => [t.social.failedTitle, said(t.social)], back);
    }
    throw err;
  }
  const account = await deps.accounts.find(resolved.principalId);
  if (!account?.active || account.type !== 'human')
    return refusedPage(reply, 403, (t) => [t.social.refusedTitle, t.social.deactivated], back);
  return continueInteraction(deps, request, reply, providerId, account.id, back);
}

/**
 * The authorization request the sign-in came from goes on: to the second step when the person has one, else signed in
 * (a login session started) and its interaction finished.
 */
async function continueInteraction(
  deps: SocialDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  providerId: string,
  principalId: string,
  back: string,
): Promise<FastifyReply> {
  const uid = back.slice('/interaction/'.length);
  const interaction = await deps.holder.current.Interaction.find(uid);
  if (!interaction) return refusedPage(reply, 400, (t) => [t.errors.requestExpiredTitle, t.social.interactionExpired]);
  // Like a right password (checkPassword), the first step passing counts as the last login.
  await noteLogin(deps.db, principalId);
  // A person with TOTP or a passkey passes the same second step as after a password: nothing is
  // signed in yet; the interaction page shows the second-factor form for this interaction.
  if (await deps.secondFactor?.afterUpstream(interaction.jti, principalId, providerId)) {
    return reply.header('cache-control', 'no-store').redirect(back, 303);
  }
  const token = await startLoginSession(
    deps.db,
    principalId,
    deps.loginSessionTtl,
    { ip: request.ip, userAgent: request.headers['user-agent'] },
    providerId,
  );
  // What provider.interactionResult does, by the uid the LoginState kept: the provider's interaction
  // cookie is scoped to /interaction/<uid> and never reaches this callback. Resuming still needs the
  // provider's resume cookie, which only the browser that started the request holds.
  interaction.result = { login: { accountId: principalId, remember: true, amr: [providerId] } };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  reply.header('set-cookie', [clearedUpstreamCookie(), loginCookie(token, deps.loginSessionTtl)]);
  return reply.header('cache-control', 'no-store').redirect(interaction.returnTo, 303);
}
