import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { safeEqual } from '../../kit/crypto.ts';
import { HttpError, type ErrorCode } from '../../kit/errors.ts';
import { recordAudit } from '../audit/record.ts';
import { startSession, type TokenPair } from '../auth/sessions.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { findSignInUser } from './mapping.ts';
import { updateProfileAtSignIn } from './profile.ts';
import { LoginFailed, type LoginProvider, type ProviderIdentity } from './provider.ts';
import type { CallbackQuery as CallbackQuerySchema } from './schemas.ts';
import { consumeLogin, readStateCookie, type PendingLogin } from './state.ts';

type Context = Pick<DashboardContext, 'db' | 'tokens'>;
type CallbackQuery = Static<typeof CallbackQuerySchema>;

/** A refusal said to the user: in the redirect's fragment when the login named one, else as the route's error. */
class Refused extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  constructor(status: number, code: ErrorCode, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The provider's callback as a pipeline: the login this browser started (state cookie against `state`, consumed
 * once), the provider's account (code exchange with PKCE and nonce), the user it is here, their session; answered
 * as the token pair, or by redirecting to the login's `redirect` with the pair (or the refusal) in the fragment.
 */
export async function finishLogin(
  ctx: Context,
  p: LoginProvider,
  request: FastifyRequest,
  query: CallbackQuery,
  reply: FastifyReply,
  callbackUrl: string,
): Promise<TokenPair | FastifyReply> {
  const pending = await pendingLogin(ctx, p, request, query);
  try {
    const who = await providerAccount(p, request, query, pending, callbackUrl);
    const pair = await signIn(ctx, p, request, who, pending);
    return pending.redirect ? redirectWith(reply, pending.redirect, fragmentOf(pair)) : pair;
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    if (!pending.redirect) throw new HttpError(err.status, err.code, err.message);
    return redirectWith(reply, pending.redirect, { error: err.code, error_description: err.message });
  }
}

async function pendingLogin(
  ctx: Context,
  p: LoginProvider,
  request: FastifyRequest,
  query: CallbackQuery,
): Promise<PendingLogin> {
  const { state } = query;
  const cookie = readStateCookie(request.headers.cookie);
  if (!state || !cookie || !safeEqual(state, cookie))
    throw validation('the login state is missing or does not match this browser; start the sign-in again');
  const pending = await consumeLogin(ctx.db, p.id, state);
  if (!pending) throw validation('this sign-in was already used or has expired; start the sign-in again');
  return pending;
}

async function providerAccount(
  p: LoginProvider,
  request: FastifyRequest,
  query: CallbackQuery,
  pending: PendingLogin,
  callbackUrl: string,
): Promise<ProviderIdentity> {
  if (query.error) throw new Refused(401, 'UNAUTHORIZED', `the provider refused the sign-in: ${query.error}`);
  const current = new URL(callbackUrl);
  current.search = new URLSearchParams(query as Record<string, string>).toString();
  try {
    return await p.finish(current, pending, callbackUrl);
  } catch (err) {
    if (!(err instanceof LoginFailed)) throw err;
    request.log.info({ provider: p.id, reason: err.message }, 'sign-in failed');
    throw new Refused(401, 'UNAUTHORIZED', err.message);
  }
}

/** The user the account is here, their name and verified email brought up to date, and a new session. */
async function signIn(
  ctx: Context,
  p: LoginProvider,
  request: FastifyRequest,
  who: ProviderIdentity,
  pending: PendingLogin,
): Promise<TokenPair> {
  const found = await findSignInUser(ctx.db, p.id, who, pending.tenantSlug);
  if (!found) {
    request.log.info({ provider: p.id, verified: who.emailVerified }, 'sign-in by someone who is not a user');
    throw new Refused(
      403,
      'FORBIDDEN',
      who.email && !who.emailVerified
        ? 'your email is not verified at the provider'
        : 'there is no account for you here; ask an admin of your tenant to add your email',
    );
  }
  // Before the session, so the access token carries the email as it is now.
  const { user, updated } = await updateProfileAtSignIn(ctx.db, found, who);
  const pair = await startSession(ctx.db, ctx.tokens, user, p.id);
  await recordAudit(ctx.db, {
    tenantId: user.tenantId,
    userId: user.id,
    action: 'user.sign_in',
    targetType: 'user',
    targetId: user.id,
    details: { provider: p.id, ...(updated.length ? { updated } : {}) },
  });
  return pair;
}

const fragmentOf = (pair: TokenPair) => ({
  accessToken: pair.accessToken,
  refreshToken: pair.refreshToken,
  expiresIn: String(pair.expiresIn),
  tokenType: pair.tokenType,
});

/** The fragment is never sent to a server, so the tokens (or the refusal) reach only the page. */
function redirectWith(reply: FastifyReply, to: string, fragment: Record<string, string>) {
  const url = new URL(to);
  url.hash = new URLSearchParams(fragment).toString();
  return reply.redirect(url.href, 302);
}
