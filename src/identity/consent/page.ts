import { accountNav, escapeHtml, page } from '../web/layout.ts';
import { describeScope } from '../web/scopes.ts';

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
}): string {
  const list = v.apps.length
    ? v.apps
        .map(
          (a) => `<section aria-labelledby="app-${escapeHtml(a.appId)}">
<h2 id="app-${escapeHtml(a.appId)}">${escapeHtml(a.name)}</h2>
<ul class="scopes">${a.scopes.map((s) => `<li>${escapeHtml(describeScope(s))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>
<p class="hint">Allowed ${escapeHtml(a.grantedAt.slice(0, 10))}${a.lastUsedAt ? `; last used ${escapeHtml(a.lastUsedAt.slice(0, 10))}` : ''}.</p>
<form method="post" action="/account/apps/${escapeHtml(a.appId)}/withdraw"><input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button class="secondary" type="submit">Withdraw access of ${escapeHtml(a.name)}</button></form>
</section>`,
        )
        .join('\n')
    : '<p>No application has access to your account.</p>';
  return page({
    title: 'Connected apps',
    body: `<h1>Connected apps</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
${list}
<p class="hint">Withdrawing an app's access ends every token it holds for you; it asks you again the next time you use it.</p>
${accountNav('/account/apps')}`,
  });
}
