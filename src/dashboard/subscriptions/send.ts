import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import { ownerOf } from '../alerts/run-rule.ts';
import type { TokenSettings } from '../auth/sessions.ts';
import { dashboardFor } from '../lookup.ts';
import { escapeHtml } from '../notifications/compose.ts';
import type { Renderer } from '../render/renderer.ts';
import type { RunContext } from '../sql/run.ts';
import { widgetCsvs, type WidgetCsv } from './data.ts';
import type { SubscriptionRow } from './store.ts';

export interface SubscriptionDeps extends RunContext {
  db: Database;
  tokens: TokenSettings;
  mailer: Mailer;
  /** Draws the picture (render/renderer.ts), in the instance's render slots. */
  renderer: Renderer;
  /** Where the mail's links point. */
  publicUrl: string;
}

export type SendOutcome = { ok: true; detail: string } | { ok: false; detail: string };

/** Who gets the mail: the chosen addresses and the chosen users who are still active in the tenant. */
async function recipientsOf(db: Database, sub: SubscriptionRow): Promise<string[]> {
  const users = await db.query<{ email: string }>(
    `SELECT email FROM users WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
    [sub.tenant_id, sub.user_ids],
  );
  return [...new Set([...sub.addresses, ...users.rows.map((u) => u.email)].map((a) => a.toLowerCase()))];
}

/**
 * One send of a subscription: the page rendered as the owner sees it, each widget's data as CSV, one mail to every
 * recipient. An image that cannot be rendered is said in the mail, which still carries the data (Metabase's "fall
 * back rather than drop"); no recipient, no mail server, an owner gone or a dashboard gone is a failure.
 */
export async function sendSubscription(deps: SubscriptionDeps, sub: SubscriptionRow): Promise<SendOutcome> {
  if (!deps.mailer.configured) return { ok: false, detail: 'no SMTP server is configured (DASHBOARD_SMTP_URL)' };
  const owner = await ownerOf(deps.db, sub.tenant_id, sub.owner_id);
  if (!owner) return { ok: false, detail: 'the subscription owner is no longer an active user' };
  // With the owner's rights (dashboards/access.ts): an owner taken off a restricted dashboard's list stops its mail.
  const dashboard = await dashboardFor(deps.db, owner, sub.dashboard_id).catch(() => undefined);
  if (!dashboard)
    return { ok: false, detail: 'the dashboard no longer exists, or the subscription owner may no longer see it' };
  const to = await recipientsOf(deps.db, sub);
  if (to.length === 0) return { ok: false, detail: 'no recipient is left (every chosen user is inactive)' };
  let image: Buffer | undefined;
  let imageError = '';
  try {
    image = await deps.renderer.draw(
      owner,
      { dashboardId: dashboard.id, parameters: sub.parameters, timezone: sub.timezone },
      { format: 'png', purpose: 'subscription' },
    );
  } catch (err) {
    imageError = `The picture of the dashboard could not be made (${(err as Error).message.split('\n')[0]}).`;
  }
  const csvs = await widgetCsvs(deps, owner, dashboard, sub.id, sub.parameters);
  const link = `${deps.publicUrl}/dashboards/${dashboard.id}`;
  const slug = dashboard.slug;
  try {
    await deps.mailer.send({
      to,
      subject: `Dashboard: ${dashboard.title}`,
      text: textOf(dashboard.title, link, sub.parameters, csvs, imageError),
      html: htmlOf(dashboard.title, link, sub.parameters, csvs, imageError, image !== undefined),
      attachments: [
        ...(image
          ? [{ filename: `${slug}.png`, content: image, contentType: 'image/png', cid: 'dashboard-image' }]
          : []),
        ...csvs
          .filter((c) => !c.error)
          .map((c) => ({ filename: c.filename, content: c.csv, contentType: 'text/csv; charset=utf-8' })),
      ],
    });
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    return { ok: false, detail: `the SMTP server refused the mail${code ? ` (${code})` : ''}` };
  }
  return {
    ok: true,
    detail: `mailed to ${to.length} recipient(s) with ${image ? 'the picture and ' : ''}${csvs.filter((c) => !c.error).length} CSV file(s)`,
  };
}

const rowsText = (c: WidgetCsv) =>
  c.error
    ? `not included: ${c.error}`
    : `${c.rows} row(s)${c.truncated ? ` (the first ${c.rows} only)` : ''}, ${c.filename}`;

function textOf(
  title: string,
  link: string,
  parameters: Record<string, string>,
  csvs: WidgetCsv[],
  imageError: string,
): string {
  const params = Object.entries(parameters);
  return [
    title,
    '',
    ...(params.length ? [`With ${params.map(([k, v]) => `${k} = ${v}`).join(', ')}`, ''] : []),
    ...(imageError ? [imageError, ''] : []),
    'Data attached as CSV:',
    ...csvs.map((c) => `- ${c.title}: ${rowsText(c)}`),
    '',
    `Open the dashboard: ${link}`,
  ].join('\n');
}

function htmlOf(
  title: string,
  link: string,
  parameters: Record<string, string>,
  csvs: WidgetCsv[],
  imageError: string,
  hasImage: boolean,
): string {
  const params = Object.entries(parameters);
  return `<!doctype html><html lang="en"><body>
<h1>${escapeHtml(title)}</h1>
${params.length ? `<p>With ${params.map(([k, v]) => `${escapeHtml(k)} = ${escapeHtml(v)}`).join(', ')}</p>` : ''}
${hasImage ? `<p><img src="cid:dashboard-image" alt="The dashboard ${escapeHtml(title)}" style="max-width:100%"></p>` : ''}
${imageError ? `<p>${escapeHtml(imageError)}</p>` : ''}
<h2>Data attached as CSV</h2>
<ul>${csvs.map((c) => `<li>${escapeHtml(c.title)}: ${escapeHtml(rowsText(c))}</li>`).join('')}</ul>
<p><a href="${escapeHtml(link)}">Open the dashboard</a></p>
</body></html>`;
}
