import { escapeHtml, page, accountNav } from '../web/layout.ts';
import { describeScope } from '../web/scopes.ts';

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
}

const scopeList = (scopes: string[], id: string) =>
  `<ul class="scopes" id="${escapeHtml(id)}">${scopes.map((s) => `<li>${escapeHtml(describeScope(s))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>`;

const model = (a: AgentCard) => `${escapeHtml(a.modelId)}${a.version ? ` (version ${escapeHtml(a.version)})` : ''}`;

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
  const pending = v.agents.filter((a) => a.status === 'pending');
  const approved = v.agents.filter((a) => a.scopes.length > 0);
  const pendingHtml = pending.length
    ? pending
        .map(
          (a) => `<section aria-labelledby="pending-${a.id}">
<h3 id="pending-${a.id}">${escapeHtml(a.name)}</h3>
<p>Model: ${model(a)}</p>
<p id="asks-${a.id}">${escapeHtml(a.name)} asks to act for you and:</p>
${scopeList(a.pendingScopes, `asks-list-${a.id}`)}
${a.scopes.length ? `<p class="hint">Already approved: ${escapeHtml(a.scopes.join(', '))}.</p>` : ''}
${decisionForm(
  a,
  v.csrf,
  [
    ['approve', `Approve ${a.name}`, 'primary'],
    ['deny', `Deny ${a.name}`, 'secondary'],
  ],
  `asks-${a.id}`,
)}
</section>`,
        )
        .join('\n')
    : '<p>No agent is waiting for your approval.</p>';
  const approvedHtml = approved.length
    ? approved
        .map(
          (a) => `<section aria-labelledby="approved-${a.id}">
<h3 id="approved-${a.id}">${escapeHtml(a.name)}</h3>
<p>Model: ${model(a)}</p>
<p id="may-${a.id}">May act for you and:</p>
${scopeList(a.scopes, `may-list-${a.id}`)}
<p class="hint">${a.liveTokens === 1 ? '1 live token' : `${a.liveTokens} live tokens`}${a.approvedAt ? `; approved ${escapeHtml(a.approvedAt.slice(0, 10))}` : ''}.</p>
${decisionForm(a, v.csrf, [['revoke', `Revoke ${a.name}`, 'secondary']], `may-${a.id}`)}
</section>`,
        )
        .join('\n')
    : '<p>You have not approved any agent.</p>';
  return page({
    title: pending.length ? `Agents (${pending.length} waiting)` : 'Agents',
    body: `<h1>Agents acting for you</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.notice ? `<p role="status">${escapeHtml(v.notice)}</p>` : ''}
<h2>Waiting for your approval</h2>
${pendingHtml}
<h2>Approved</h2>
${approvedHtml}
<p class="hint">Revoking an agent ends every token it holds for you, and every token other agents obtained from those.</p>
${accountNav('/agents')}`,
  });
}
