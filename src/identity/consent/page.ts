import { accountNav, escapeHtml, page } from '../web/layout.ts';
import { describeScope } from '../web/scopes.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';

export interface ConnectedApp {
  appId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
  lastUsedAt: string | null;
}

/** The person's connected apps: each third-party app they allowed, what it may do, and a button to withdraw it. */
export function connectedAppsPage(v: {
  accountLabel: string;
  csrf: string;
  apps: ConnectedApp[];
  notice?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.apps;
  const list = v.apps.length
    ? v.apps
        .map(
          (a) => `<section aria-labelledby="app-${escapeHtml(a.appId)}">
<h2 id="app-${escapeHtml(a.appId)}">${escapeHtml(a.name)}</h2>
<ul class="scopes">${a.scopes.map((s) => `<li>${escapeHtml(describeScope(s, all.scopes))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>
<p class="hint">${escapeHtml(t.allowed(a.grantedAt.slice(0, 10)))}${a.lastUsedAt ? escapeHtml(t.lastUsed(a.lastUsedAt.slice(0, 10))) : ''}.</p>
<form method="post" action="/account/apps/${escapeHtml(a.appId)}/withdraw"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="secondary" type="submit">${escapeHtml(t.withdraw(a.name))}</button></form>
</section>`,
        )
        .join('\n')
    : `<p>${escapeHtml(t.none)}</p>`;
  return page({
    lang,
    title: t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
${list}
<p class="hint">${escapeHtml(t.hint)}</p>
${accountNav('/account/apps', all.accountNav)}`,
  });
}
