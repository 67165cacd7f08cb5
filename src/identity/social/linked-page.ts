import { accountNav, errorBlock, escapeHtml, page } from '../web/layout.ts';
import type { LinkedAccount } from './account-links.ts';

export interface LinkedPageView {
  accountLabel: string;
  csrf: string;
  linked: LinkedAccount[];
  /** The configured providers: id and the name their buttons show. */
  providers: { id: string; name: string }[];
  notice?: string | undefined;
  error?: string | undefined;
}

const day = (iso: string) => `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 10))}</time>`;

/** The person's linked social accounts, an Unlink button each, and a Link button per provider configured here. */
export function linkedAccountsPage(v: LinkedPageView): string {
  const names = new Map(v.providers.map((p) => [p.id, p.name]));
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">`;
  const list = v.linked.length
    ? `<ul class="linked">${v.linked
        .map((a) => {
          const name = names.get(a.provider) ?? a.provider;
          const label = `${name}${a.email ? ` (${a.email})` : ''}`;
          return `<li>
<h2>${escapeHtml(name)}${names.has(a.provider) ? '' : ' <span class="hint">(not offered here any more)</span>'}</h2>
<dl class="facts">
<dt>Account</dt><dd>${escapeHtml(a.email ?? 'no email address shared')}</dd>
<dt>Linked</dt><dd>${day(a.createdAt)}</dd>
<dt>Last sign-in</dt><dd>${a.lastLoginAt ? day(a.lastLoginAt) : 'never'}</dd>
</dl>
<form method="post" action="/account/linked/${escapeHtml(a.id)}/unlink">${csrf}<button class="secondary" type="submit">Unlink <span class="vh">${escapeHtml(label)}</span></button></form>
</li>`;
        })
        .join('\n')}</ul>`
    : '<p>No social account is linked.</p>';
  const buttons = v.providers.length
    ? `<h2>Link an account</h2>
<p>You go to the provider to sign in there, and come back here with the account linked.</p>
${v.providers.map((p) => `<form method="post" action="/account/linked/${escapeHtml(p.id)}/link">${csrf}<button class="secondary" type="submit">Link ${escapeHtml(p.name)}</button></form>`).join('\n')}`
    : '<p class="hint">No social sign-in is set up on this server.</p>';
  return page({
    title: v.error ? 'Error: Linked accounts' : 'Linked accounts',
    body: `<h1>Linked accounts</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>. You can sign in with each account linked here.</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
${errorBlock(v.error)}
${list}
${buttons}
${accountNav('/account/linked')}`,
  });
}
