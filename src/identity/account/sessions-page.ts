import { accountNav, escapeHtml, page } from '../web/layout.ts';
import type { SessionView } from '../sessions/list.ts';
import { describeDevice } from './device.ts';

export interface SessionsPageView {
  accountLabel: string;
  csrf: string;
  /** The row id of this browser's own session. */
  currentId: string;
  sessions: SessionView[];
  /** Names for the social providers sessions were signed in with ("GitHub"). */
  providerNames: ReadonlyMap<string, string>;
  notice?: string | undefined;
}

/** "2026-05-01 10:00 UTC" in a <time>: the service has no idea of the reader's time zone. */
function when(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)}</time>`;
}

function sessionItem(s: SessionView, v: SessionsPageView): string {
  const device = describeDevice(s.userAgent);
  const current = s.id === v.currentId;
  const via = s.provider ? `with ${v.providerNames.get(s.provider) ?? s.provider}` : 'with a password or passkey';
  const end = current
    ? '<p><a href="/signout">Sign out of this browser</a></p>'
    : `<form method="post" action="/account/sessions/${escapeHtml(s.id)}/end"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="secondary" type="submit">Sign out <span class="vh">${escapeHtml(device)}, signed in ${escapeHtml(s.createdAt.slice(0, 16).replace('T', ' '))}</span></button></form>`;
  return `<li>
<h2>${escapeHtml(device)}${current ? ' <span class="badge">This browser</span>' : ''}</h2>
<dl class="facts">
<dt>Signed in</dt><dd>${when(s.createdAt)}, ${escapeHtml(via)}</dd>
<dt>From</dt><dd>${escapeHtml(s.clientIp ?? 'unknown address')}</dd>
<dt>Second step</dt><dd>${s.secondFactor ? 'Yes' : 'No'}</dd>
<dt>Expires</dt><dd>${when(s.expiresAt)}</dd>
</dl>
${end}
</li>`;
}

/** The person's live sign-in sessions, this browser's marked, each other one with a button that ends it. */
export function sessionsPage(v: SessionsPageView): string {
  const others = v.sessions.filter((s) => s.id !== v.currentId).length;
  return page({
    title: 'Sessions',
    body: `<h1>Sessions</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>. These are the browsers where you are signed in now.</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
<ul class="sessions">
${v.sessions.map((s) => sessionItem(s, v)).join('\n')}
</ul>
${others > 0 ? `<form method="post" action="/account/sessions/end-others"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="primary" type="submit">Sign out everywhere else</button></form>` : ''}
<p class="hint">Signing a browser out ends its session here: it must sign in again. Apps you signed in to from that browser keep their tokens until they expire or you withdraw their access on the connected apps page.</p>
${accountNav('/account/sessions')}`,
  });
}
