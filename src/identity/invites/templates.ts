import { errorBlock, escapeHtml, page } from '../web/layout.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

const ENGLISH: Localized = { lang: 'en', t: LANGUAGES.en };

export interface InviteView {
  organizationName: string;
  role: string;
  email: string;
  inviterName: string | null;
  message: string | null;
  expiresAt: string;
  action: string;
  token: string;
  csrf: string;
  /** The signed-in person, if any: accept is offered then; otherwise a link to sign in. */
  signedInAs?: string | undefined;
  signInHref: string;
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. Names, roles and addresses are not translated. */
  loc?: Localized | undefined;
}

function readableTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function invitePage(v: InviteView): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.invites;
  const org = escapeHtml(v.organizationName);
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">\n<input type="hidden" name="token" value="${escapeHtml(v.token)}">`;
  const who = v.signedInAs
    ? `<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.signedInAs)}</strong>. <a href="${escapeHtml(v.signInHref)}">${escapeHtml(t.someoneElse)}</a></p>`
    : `<p>${escapeHtml(t.toAcceptBefore)} <a href="${escapeHtml(v.signInHref)}">${escapeHtml(t.signInAs(v.email))}</a> ${escapeHtml(t.toAcceptAfter)}</p>`;
  const inviter = v.inviterName
    ? `<strong>${escapeHtml(v.inviterName)}</strong> ${escapeHtml(t.invitesYou)}`
    : escapeHtml(t.youAreInvited);
  return page({
    lang,
    title: v.error ? t.errorTitle(v.organizationName) : t.title(v.organizationName),
    body: `<h1>${escapeHtml(t.heading(v.organizationName))}</h1>
${errorBlock(v.error)}
<p>${inviter} ${escapeHtml(t.toJoin)} <strong>${org}</strong> ${escapeHtml(t.as)} <strong>${escapeHtml(v.role)}</strong>.</p>
<dl>
<dt>${escapeHtml(t.sentTo)}</dt><dd>${escapeHtml(v.email)}</dd>
<dt>${escapeHtml(t.role)}</dt><dd>${escapeHtml(v.role)}</dd>
<dt>${escapeHtml(t.validUntil)}</dt><dd>${escapeHtml(readableTime(v.expiresAt))}</dd>
</dl>
${v.message ? `<h2>${escapeHtml(t.message)}</h2>\n<p>${escapeHtml(v.message)}</p>` : ''}
${who}
<form method="post" action="${escapeHtml(v.action)}">
${hidden}
${v.signedInAs ? `<button class="primary" type="submit" name="decision" value="accept"${v.error ? '' : ' autofocus'}>${escapeHtml(t.accept)}</button>` : ''}
<button class="secondary" type="submit" name="decision" value="decline"${v.signedInAs ? '' : ' style="margin-left:0"'}>${escapeHtml(t.decline)}</button>
</form>`,
  });
}

/** The title and text of each state an invitation can move on to: keys of the catalogue's `invites`. */
const STATE_TEXT: Record<string, [keyof Messages['invites'], keyof Messages['invites']]> = {
  accepted: ['acceptedTitle', 'accepted'],
  declined: ['declinedTitle', 'declined'],
  expired: ['expiredTitle', 'expired'],
  revoked: ['revokedTitle', 'revoked'],
};

/** The page of an invitation that can no longer be acted on, named by its state. */
export function inviteStatePage(status: string, organizationName: string, loc: Localized = ENGLISH): string {
  const t = loc.t.invites;
  const [titleKey, textKey] = STATE_TEXT[status] ?? ['unavailableTitle', 'unavailable'];
  const title = String(t[titleKey]);
  return page({
    lang: loc.lang,
    title,
    body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(String(t[textKey]))}</p>\n<p>${escapeHtml(t.organization)} <strong>${escapeHtml(organizationName)}</strong></p>`,
  });
}

export function inviteDonePage(
  accepted: boolean,
  organizationName: string,
  role: string,
  loc: Localized = ENGLISH,
): string {
  const t = loc.t.invites;
  const org = escapeHtml(organizationName);
  return accepted
    ? page({
        lang: loc.lang,
        title: t.joinedTitle(organizationName),
        body: `<h1>${escapeHtml(t.joinedTitle(organizationName))}</h1>\n<p role="status">${escapeHtml(t.memberBefore)} <strong>${org}</strong> ${escapeHtml(t.as)} <strong>${escapeHtml(role)}</strong>${escapeHtml(t.memberAfter)}</p>`,
      })
    : page({
        lang: loc.lang,
        title: t.declinedTitle,
        body: `<h1>${escapeHtml(t.declinedTitle)}</h1>\n<p role="status">${escapeHtml(t.declinedBefore)} <strong>${org}</strong>.</p>`,
      });
}
