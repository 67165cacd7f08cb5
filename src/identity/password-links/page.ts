import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { pageLanguage, staticHtml } from '../web/respond.ts';
import { signInLink } from '../web/sign-in-link.ts';
import type { FormGuard } from '../web/form-guard.ts';
import { PASSWORD_LINK_PATH, readLink, spendLink, type LinkPurpose, type LinkState } from './store.ts';
import { choosePasswordPage, linkStatePage, passwordSetPage, type ChooseField } from './templates.ts';

export interface PasswordLinkPageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  issuer: string;
  forms: FormGuard;
}

// Unknown, spent and expired links each get their own status, so a script (and a test) can tell them apart too.
const STATUS = { unknown: 404, used: 409, expired: 410, replaced: 410 } as const;
const csrfPurpose = (token: string) => `password-link:${sha256Hex(token)}`;

function gone(reply: FastifyReply, link: Exclude<LinkState, { state: 'open' }>): FastifyReply {
  return staticHtml(
    reply,
    STATUS[link.state],
    linkStatePage(link.state, 'purpose' in link && link.purpose === 'reset', pageLanguage(reply.request, reply)),
  );
}

/** The choose-your-password form of an open link. */
function form(
  deps: PasswordLinkPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  link: { email: string; purpose: LinkPurpose },
  status = 200,
  error?: string,
  invalid?: ChooseField[],
): FastifyReply {
  return staticHtml(
    reply,
    status,
    choosePasswordPage({
      action: PASSWORD_LINK_PATH,
      token,
      email: link.email,
      reset: link.purpose === 'reset',
      csrf: deps.forms.issue(request, reply, csrfPurpose(token)),
      error,
      invalid,
      loc: pageLanguage(request, reply),
    }),
  );
}

/** The page a link opens: the form, or the link's state when it can no longer be used. */
export async function showLink(
  deps: PasswordLinkPageDeps,
  request: FastifyRequest<{ Querystring: { token?: string | undefined } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const token = request.query.token ?? '';
  const link: LinkState = token ? await readLink(deps.db, token) : { state: 'unknown' };
  if (link.state !== 'open') return gone(reply, link);
  return form(deps, request, reply, token, link);
}

/** The form posted: the password set and the link spent, or the form again saying what to fix. */
export async function choosePassword(
  deps: PasswordLinkPageDeps,
  request: FastifyRequest<{
    Body: {
      token?: string | undefined;
      csrf?: string | undefined;
      new_password?: string | undefined;
      confirm_password?: string | undefined;
    };
  }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const loc = pageLanguage(request, reply);
  const t = loc.t.passwordLink;
  const token = deps.forms.linkForm(request, reply, deps.issuer, csrfPurpose, {
    page: 'password page',
    retry: t.openAgain,
    loc,
  });
  if (!token) return reply;
  const link = await readLink(deps.db, token);
  if (link.state !== 'open') return gone(reply, link);
  const next = String(request.body.new_password ?? '');
  const confirm = String(request.body.confirm_password ?? '');
  const again = (error: string, invalid: ChooseField[]) => form(deps, request, reply, token, link, 400, error, invalid);
  if (next.length < MIN_PASSWORD_LENGTH) return again(t.tooShort(MIN_PASSWORD_LENGTH), ['new']);
  if (next !== confirm) return again(t.differ, ['confirm']);
  const done = await spendLink(deps.db, token, next);
  // Another tab spent it (or it expired) between the read and the post.
  if (done.state !== 'set') return gone(reply, done);
  // The principal's cached view still says "email not verified"; the next sign-in must see it verified.
  deps.accounts.invalidate(done.principalId);
  const reset = link.purpose === 'reset';
  return staticHtml(
    reply,
    200,
    passwordSetPage(done.email, link.continueTo ?? signInLink('/account/password', done.email, reset), reset, loc),
  );
}
