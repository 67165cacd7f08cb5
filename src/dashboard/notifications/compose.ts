import type { AlertPayload } from '../alerts/message.ts';

const LABEL: Record<string, string> = {
  'alert.firing': 'FIRING',
  'alert.resolved': 'RESOLVED',
  'alert.nodata': 'NO DATA',
  'alert.error': 'ERROR',
  'alert.test': 'TEST',
};

/** A reminder says so before its state, so a subject line alone tells it from a new firing. */
export const labelOf = (p: AlertPayload) => `${p.data.reminder ? 'REMINDER: ' : ''}${LABEL[p.type] ?? p.type}`;

const stateOf = (p: AlertPayload) =>
  p.data.reminder ? `still ${p.data.state}` : `${p.data.previousState} → ${p.data.state}`;

export function subjectOf(p: AlertPayload): string {
  return `[${labelOf(p)}] ${p.data.rule.name}`;
}

/** The plain-text body of an email, and Slack's `text` (its notification and fallback). */
export function textOf(p: AlertPayload): string {
  const lines = [
    `${subjectOf(p)}`,
    '',
    `State: ${stateOf(p)}`,
    `Condition: ${p.data.condition}`,
    ...(p.data.value !== null ? [`Value: ${p.data.value}`] : []),
    `Why: ${p.data.reason}`,
    `At: ${p.timestamp}`,
    '',
    `Open: ${p.data.url}`,
  ];
  return lines.join('\n');
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function htmlOf(p: AlertPayload): string {
  const row = (k: string, v: string) => `<tr><th scope="row" align="left">${k}</th><td>${escapeHtml(v)}</td></tr>`;
  return `<!doctype html><html lang="en"><body>
<h1>${escapeHtml(subjectOf(p))}</h1>
<table>${row('State', stateOf(p))}${row('Condition', p.data.condition)}${
    p.data.value !== null ? row('Value', String(p.data.value)) : ''
  }${row('Why', p.data.reason)}${row('At', p.timestamp)}</table>
<p><a href="${escapeHtml(p.data.url)}">Open in the dashboard</a></p>
</body></html>`;
}

/** Slack mrkdwn needs only &, < and > escaped (Slack's "Formatting text" guide); a rule's name is untrusted text. */
const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An incoming webhook's body: `text` always (notifications and fallback), with Block Kit `blocks` for the layout. */
export function slackBodyOf(p: AlertPayload): { text: string; blocks: unknown[] } {
  const value = p.data.value !== null ? `\n*Value:* ${p.data.value}` : '';
  return {
    text: escapeSlack(`${subjectOf(p)}: ${p.data.reason}`),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: subjectOf(p).slice(0, 150) } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            escapeSlack(`*State:* ${stateOf(p)}\n*Condition:* ${p.data.condition}`) +
            escapeSlack(value) +
            escapeSlack(`\n*Why:* ${p.data.reason}`),
        },
      },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in the dashboard' }, url: p.data.url }],
      },
    ],
  };
}
