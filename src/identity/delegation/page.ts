import { escapeHtml, page, accountNav } from '../web/layout.ts';
import { describeScope } from '../web/scopes.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

export interface AgentCard {
  id: string;
  name: string;
  modelId: string;
  version: string | null;
  status: 'pending' | 'approved' | 'denied' | 'revoked';
  scopes: string[];
  pendingScopes: string[];
  liveTokens: number;
  approvedAt: string | null;
}

export interface AgentsView {
  accountLabel: string;
  csrf: string;
  agents: AgentCard[];
  notice?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

const scopeList = (scopes: string[], id: string, t: Messages['scopes']) =>
  `<ul class="scopes" id="${escapeHtml(id)}">${scopes.map((s) => `<li>${escapeHtml(describeScope(s, t))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>`;

const model = (a: AgentCard, t: Messages['agents']) =>
  `${escapeHtml(a.modelId)}${a.version ? ` (${escapeHtml(t.version(a.version))})` : ''}`;

/** One form per decision: the agent and the choice travel in the action and the button, the CSRF token in a hidden field. */
function decisionForm(
  a: AgentCard,
  csrf: string,
  buttons: [string, string, 'primary' | 'secondary'][],
  describedBy: string,
): string {
  return `<form method="post" action="/agents/${encodeURIComponent(a.id)}/decision">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
${buttons.map(([value, label, kind]) => `<button class="${kind}" type="submit" name="decision" value="${value}" aria-describedby="${escapeHtml(describedBy)}">${escapeHtml(label)}</button>`).join('\n')}
</form>`;
}

/** The person's page: agents waiting for approval (with their model and the scopes they ask for) and approved agents. */
export function agentsPage(v: AgentsView): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.agents;
  const pending = v.agents.filter((a) => a.status === 'pending');
  const approved = v.agents.filter((a) => a.scopes.length > 0);
  const pendingHtml = pending.length
    ? pending
        .map(
          (a) => `<section aria-labelledby="pending-${a.id}">
<h3 id="pending-${a.id}">${escapeHtml(a.name)}</h3>
<p>${escapeHtml(t.model)} ${model(a, t)}</p>
<p id="asks-${a.id}">${escapeHtml(t.asks(a.name))}</p>
${scopeList(a.pendingScopes, `asks-list-${a.id}`, all.scopes)}
${a.scopes.length ? `<p class="hint">${escapeHtml(t.alreadyApproved(a.scopes.join(', ')))}</p>` : ''}
${decisionForm(
  a,
  v.csrf,
  [
    ['approve', t.approve(a.name), 'primary'],
    ['deny', t.deny(a.name), 'secondary'],
  ],
  `asks-${a.id}`,
)}
</section>`,
        )
        .join('\n')
    : `<p>${escapeHtml(t.noneWaiting)}</p>`;
  const approvedHtml = approved.length
    ? approved
        .map(
          (a) => `<section aria-labelledby="approved-${a.id}">
<h3 id="approved-${a.id}">${escapeHtml(a.name)}</h3>
<p>${escapeHtml(t.model)} ${model(a, t)}</p>
<p id="may-${a.id}">${escapeHtml(t.mayAct)}</p>
${scopeList(a.scopes, `may-list-${a.id}`, all.scopes)}
<p class="hint">${escapeHtml(t.liveTokens(a.liveTokens))}${a.approvedAt ? escapeHtml(t.approvedOn(a.approvedAt.slice(0, 10))) : ''}.</p>
${decisionForm(a, v.csrf, [['revoke', t.revoke(a.name), 'secondary']], `may-${a.id}`)}
</section>`,
        )
        .join('\n')
    : `<p>${escapeHtml(t.noneApproved)}</p>`;
  return page({
    lang,
    title: pending.length ? t.titleWaiting(pending.length) : t.title,
    body: `<h1>${escapeHtml(t.heading)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.notice ? `<p role="status">${escapeHtml(v.notice)}</p>` : ''}
<h2>${escapeHtml(t.waitingHeading)}</h2>
${pendingHtml}
<h2>${escapeHtml(t.approvedHeading)}</h2>
${approvedHtml}
<p class="hint">${escapeHtml(t.hint)}</p>
${accountNav('/agents', all.accountNav)}`,
  });
}
