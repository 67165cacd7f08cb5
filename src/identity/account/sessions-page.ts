import { accountNav, escapeHtml, page } from '../web/layout.ts';
import type { SessionView } from '../sessions/list.ts';
import { describeDevice } from './device.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

export interface SessionsPageView {
  accountLabel: string;
  csrf: string;
  /** The row id of this browser's own session. */
  currentId: string;
  sessions: SessionView[];
  /** Names for the social providers sessions were signed in with ("GitHub"). */
  providerNames: ReadonlyMap<string, string>;
  notice?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

/** "2026-05-01 10:00 UTC" in a <time>: the service has no idea of the reader's time zone. */
function when(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)}</time>`;
}

function sessionItem(s: SessionView, v: SessionsPageView, t: Messages['sessions']): string {
  const device = describeDevice(s.userAgent);
  const current = s.id === v.currentId;
  const via = s.provider ? t.via(v.providerNames.get(s.provider) ?? s.provider) : t.viaPassword;
  const end = current
    ? `<p><a href="/signout">${escapeHtml(t.signOutHere)}</a></p>`
    : `<form method="post" action="/account/sessions/${escapeHtml(s.id)}/end"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="secondary" type="submit">${escapeHtml(t.signOut)} <span class="vh">${escapeHtml(t.signedInOn(device, s.createdAt.slice(0, 16).replace('T', ' ')))}</span></button></form>`;
  return `<li>
<h2>${escapeHtml(device)}${current ? ` <span class="badge">${escapeHtml(t.thisBrowser)}</span>` : ''}</h2>
<dl class="facts">
<dt>${escapeHtml(t.signedIn)}</dt><dd>${when(s.createdAt)}, ${escapeHtml(via)}</dd>
<dt>${escapeHtml(t.from)}</dt><dd>${escapeHtml(s.clientIp ?? t.unknownAddress)}</dd>
<dt>${escapeHtml(t.secondStep)}</dt><dd>${escapeHtml(s.secondFactor ? t.yes : t.no)}</dd>
<dt>${escapeHtml(t.expires)}</dt><dd>${when(s.expiresAt)}</dd>
</dl>
${end}
</li>`;
}

/** The person's live sign-in sessions, this browser's marked, each other one with a button that ends it. */
export function sessionsPage(v: SessionsPageView): string {
  const others = v.sessions.filter((s) => s.id !== v.currentId).length;
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.sessions;
  return page({
    lang,
    title: t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>. ${escapeHtml(t.intro)}</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
<ul class="sessions">
${v.sessions.map((s) => sessionItem(s, v, t)).join('\n')}
</ul>
${others > 0 ? `<form method="post" action="/account/sessions/end-others"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="primary" type="submit">${escapeHtml(t.signOutOthers)}</button></form>` : ''}
<p class="hint">${escapeHtml(t.hint)}</p>
${accountNav('/account/sessions', all.accountNav)}`,
  });
}
