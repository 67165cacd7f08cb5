import { accountNav, errorBlock, escapeHtml, page } from '../web/layout.ts';
import type { LinkedAccount } from './account-links.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';

export interface LinkedPageView {
  accountLabel: string;
  csrf: string;
  linked: LinkedAccount[];
  /** The configured providers: id and the name their buttons show. */
  providers: { id: string; name: string }[];
  notice?: string | undefined;
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

const day = (iso: string) => `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 10))}</time>`;

/** The person's linked social accounts, an Unlink button each, and a Link button per provider configured here. */
export function linkedAccountsPage(v: LinkedPageView): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.linked;
  const names = new Map(v.providers.map((p) => [p.id, p.name]));
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">`;
  const list = v.linked.length
    ? `<ul class="linked">${v.linked
        .map((a) => {
          const name = names.get(a.provider) ?? a.provider;
          const label = `${name}${a.email ? ` (${a.email})` : ''}`;
          return `<li>
<h2>${escapeHtml(name)}${names.has(a.provider) ? '' : ` <span class="hint">${escapeHtml(t.notOffered)}</span>`}</h2>
<dl class="facts">
<dt>${escapeHtml(t.account)}</dt><dd>${escapeHtml(a.email ?? t.noEmail)}</dd>
<dt>${escapeHtml(t.linkedOn)}</dt><dd>${day(a.createdAt)}</dd>
<dt>${escapeHtml(t.lastSignIn)}</dt><dd>${a.lastLoginAt ? day(a.lastLoginAt) : escapeHtml(t.never)}</dd>
</dl>
<form method="post" action="/account/linked/${escapeHtml(a.id)}/unlink">${csrf}<button class="secondary" type="submit">${escapeHtml(t.unlink)} <span class="vh">${escapeHtml(label)}</span></button></form>
</li>`;
        })
        .join('\n')}</ul>`
    : `<p>${escapeHtml(t.none)}</p>`;
  const buttons = v.providers.length
    ? `<h2>${escapeHtml(t.linkHeading)}</h2>
<p>${escapeHtml(t.linkHint)}</p>
${v.providers.map((p) => `<form method="post" action="/account/linked/${escapeHtml(p.id)}/link">${csrf}<button class="secondary" type="submit">${escapeHtml(t.link(p.name))}</button></form>`).join('\n')}`
    : `<p class="hint">${escapeHtml(t.noProviders)}</p>`;
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>. ${escapeHtml(t.intro)}</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
${errorBlock(v.error)}
${list}
${buttons}
${accountNav('/account/linked', all.accountNav)}`,
  });
}
