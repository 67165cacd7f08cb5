import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { MailCatcher, SlackWebhookReceiver, StandardWebhookReceiver, mimeParts } from './alert-receivers.ts';

let source: FreshDatabase;
let sourceDb: pg.Client;
let serviceDb: pg.Client;
let s: DashboardServer;
let admin: SignedIn;
let editor: SignedIn;
let viewer: SignedIn;
let stranger: SignedIn;
let sourceId: number;
let savedQueryId: number;
let dashboardId: number;
const mail = new MailCatcher();
const hook = new StandardWebhookReceiver();
const slack = new SlackWebhookReceiver();
const channels: Record<'email' | 'webhook' | 'slack', number> = { email: 0, webhook: 0, slack: 0 };

/** Moves a rule's next evaluation to now: the tests do not wait out an interval of minutes. */
const due = (ruleId: number) => serviceDb.query('UPDATE alert_rules SET next_eval_at = now() WHERE id = $1', [ruleId]);
const setValue = (v: number | null) => sourceDb.query('UPDATE metric SET v = $1', [v]);

before(async () => {
  await Promise.all([mail.start(), hook.start(), slack.start('/services/T000/B000/XXXX')]);
  source = await freshPostgres('alertsrc');
  sourceDb = new pg.Client({ connectionString: source.url });
  await sourceDb.connect();
  await sourceDb.query('CREATE TABLE metric (name text, v numeric); INSERT INTO metric VALUES ($$errors$$, 1)');
  s = await startDashboard('alerts', {
    DASHBOARD_SMTP_URL: mail.url,
    DASHBOARD_MAIL_FROM: 'alerts@dash.example',
    DASHBOARD_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    DASHBOARD_SCHEDULER_TICK_MS: '100',
  });
  serviceDb = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
  await serviceDb.connect();
  admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
  const ds = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Metrics', slug: 'metrics', type: 'postgres', connectionUrl: source.url },
  });
  assert.equal(ds.status, 201, JSON.stringify(ds.body));
  sourceId = ds.body.id;
  const q = await s.request('POST', '/api/v1/queries', {
    as: editor,
    body: { name: 'Errors', dataSourceId: sourceId, query: 'SELECT v AS errors FROM metric' },
  });
  assert.equal(q.status, 201, JSON.stringify(q.body));
  savedQueryId = q.body.id;
  const d = await s.request('POST', '/api/v1/dashboards', {
    as: editor,
    body: {
      slug: 'ops',
      title: 'Ops',
      definition: {
        layout: { type: 'grid', columns: 12, rowHeight: 30 },
        dataSources: [{ id: sourceId }],
        widgets: [
          { id: 'errors', type: 'stat', title: 'Errors', position: { x: 0, y: 0, w: 4, h: 4 }, savedQueryId },
          { id: 'note', type: 'text', position: { x: 4, y: 0, w: 4, h: 4 } },
        ],
      },
    },
  });
  assert.equal(d.status, 201, JSON.stringify(d.body));
  dashboardId = d.body.id;
  const email = await s.request('POST', '/api/v1/alert-channels', {
    as: admin,
    body: { name: 'On-call mail', kind: 'email', addresses: ['oncall@acme.example'] },
  });
  const webhook = await s.request('POST', '/api/v1/alert-channels', {
    as: admin,
    body: { name: 'Pager hook', kind: 'webhook', url: hook.url },
  });
  const slackChannel = await s.request('POST', '/api/v1/alert-channels', {
    as: admin,
    body: { name: 'Ops Slack', kind: 'slack', url: slack.url },
  });
  for (const r of [email, webhook, slackChannel]) assert.equal(r.status, 201, JSON.stringify(r.body));
  channels.email = email.body.id;
  channels.webhook = webhook.body.id;
  channels.slack = slackChannel.body.id;
  hook.secret = webhook.body.secret;
});

after(async () => {
  await serviceDb?.end();
  await s?.close();
  await sourceDb?.end();
  await source?.drop();
  await Promise.all([mail.close(), hook.close(), slack.close()]);
});

const rule = (over: Record<string, unknown> = {}) => ({
  name: 'Too many errors',
  savedQueryId,
  condition: { op: 'above', threshold: 10 },
  intervalMinutes: 5,
  channelIds: [channels.email, channels.webhook, channels.slack],
  ...over,
});

describe('notification channels', () => {
  test("a webhook's secret is answered once, never listed; Slack's URL is never answered, only its origin", async () => {
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const list = await s.request('GET', '/api/v1/alert-channels', { as: viewer });
    assert.equal(list.status, 200);
    const text = JSON.stringify(list.body);
    assert.ok(!text.includes('whsec_'));
    assert.ok(!text.includes('/services/T000'), 'the Slack URL is a credential');
    const slackRow = list.body.items.find((c: { id: number }) => c.id === channels.slack);
    assert.equal(slackRow.target, new URL(slack.url).origin);
    const stored = await serviceDb.query('SELECT url_sealed, secret_sealed FROM notification_channels');
    for (const r of stored.rows) {
      assert.ok(!String(r.url_sealed).includes('127.0.0.1'));
      assert.ok(!String(r.secret_sealed).includes('whsec_'));
    }
  });

  test('bad channels are clear 400s; editors may not add one; a name is unique', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'x', kind: 'email' }, /addresses: required/],
      [{ name: 'x', kind: 'email', addresses: ['not an address'] }, /addresses/],
      [{ name: 'x', kind: 'webhook' }, /url: required/],
      [{ name: 'x', kind: 'slack', url: slack.url, addresses: ['a@b.c'] }, /not addresses/],
      [{ name: 'x', kind: 'webhook', url: 'http://10.1.2.3/hook' }, /private address/],
      [{ name: 'x', kind: 'webhook', url: 'http://169.254.169.254/latest' }, /metadata/],
      [{ name: 'x', kind: 'webhook', url: 'ftp://example.com/x' }, /url/],
      [{ name: 'x', kind: 'pager', url: hook.url }, /kind/],
      [{ name: '', kind: 'email', addresses: ['a@b.c'] }, /name/],
    ];
    for (const [body, message] of cases) {
      const r = await s.request('POST', '/api/v1/alert-channels', { as: admin, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, message, JSON.stringify(r.body));
    }
    const bad = await s.request('POST', '/api/v1/alert-channels', { as: admin, body: '{"name": ' });
    assert.equal(bad.status, 400);
    const asEditor = await s.request('POST', '/api/v1/alert-channels', {
      as: editor,
      body: { name: 'x', kind: 'email', addresses: ['a@b.c'] },
    });
    assert.equal(asEditor.status, 403);
    const dup = await s.request('POST', '/api/v1/alert-channels', {
      as: admin,
      body: { name: 'On-call mail', kind: 'email', addresses: ['a@b.c'] },
    });
    assert.equal(dup.status, 409);
    const other = await s.request('POST', `/api/v1/alert-channels/${channels.email}/test`, { as: stranger });
    assert.equal(other.status, 404);
  });

  test('a test notification reaches each kind: signed webhook, Slack text and blocks, mail', async () => {
    for (const id of Object.values(channels)) {
      const r = await s.request('POST', `/api/v1/alert-channels/${id}/test`, { as: editor });
      assert.equal(r.status, 200);
      assert.equal(r.body.ok, true, r.body.detail);
    }
    const h = await hook.inbox.next((x) => x.json?.type === 'alert.test');
    assert.ok(hook.verifies(h));
    const sl = await slack.inbox.next((x) => /TEST/.test(x.json?.text));
    assert.ok(Array.isArray(sl.json.blocks));
    const m = await mail.inbox.next((x) => x.subject.startsWith('[TEST]'));
    assert.deepEqual(m.to, ['oncall@acme.example']);
  });

  test('a test to a receiver that refuses says what it answered, as a 200 with ok false', async () => {
    hook.answers.push(410);
    const r = await s.request('POST', `/api/v1/alert-channels/${channels.webhook}/test`, { as: editor });
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, false);
    assert.match(r.body.detail, /answered 410/);
  });
});

describe('alert rule routes', () => {
  test('bad rules are clear 400s (or 404 for a reference that is not there), never 500', async () => {
    const cases: [unknown, number, RegExp][] = [
      [rule({ dashboardId, widgetId: 'errors' }), 400, /either savedQueryId, or dashboardId/],
      [rule({ savedQueryId: undefined }), 400, /either savedQueryId/],
      [rule({ savedQueryId: undefined, dashboardId }), 400, /go together/],
      [rule({ savedQueryId: undefined, dashboardId, widgetId: 'nope' }), 400, /no widget "nope"/],
      [rule({ savedQueryId: undefined, dashboardId, widgetId: 'note' }), 400, /has no query/],
      [rule({ condition: { op: 'above' } }), 400, /threshold: required/],
      [rule({ condition: { op: 'outside', threshold: 5, thresholdHigh: 1 } }), 400, /greater than/],
      [rule({ condition: { op: 'sideways', threshold: 5 } }), 400, /op/],
      [rule({ intervalMinutes: 0 }), 400, /intervalMinutes/],
      [rule({ pendingMinutes: -1 }), 400, /pendingMinutes/],
      [rule({ channelIds: [999999] }), 400, /no channel 999999/],
      [rule({ channelIds: [channels.email, channels.email] }), 400, /channelIds/],
      [rule({ name: 'x\u0000' }), 400, /name/],
      [rule({ extra: 1 }), 400, /extra|additional/],
      [rule({ savedQueryId: 999999 }), 404, /saved query not found/],
      [rule({ savedQueryId: undefined, dashboardId: 999999, widgetId: 'errors' }), 404, /dashboard not found/],
    ];
    for (const [body, status, message] of cases) {
      const r = await s.request('POST', '/api/v1/alert-rules', { as: editor, body });
      assert.equal(r.status, status, JSON.stringify(body) + JSON.stringify(r.body));
      assert.match(r.body.error.message, message, JSON.stringify(r.body));
    }
  });

  test('viewers read but may not write; another tenant sees nothing; silence takes 1 minute to 30 days', async () => {
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Quiet one', enabled: false, channelIds: [] }),
    });
    assert.equal(made.status, 201);
    const id = made.body.id;
    assert.equal(made.body.state, 'ok');
    assert.equal(made.body.ownerId, editor.userId);
    assert.equal((await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer })).status, 200);
    assert.equal((await s.request('POST', '/api/v1/alert-rules', { as: viewer, body: rule() })).status, 403);
    assert.equal((await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: viewer })).status, 403);
    assert.equal((await s.request('GET', `/api/v1/alert-rules/${id}`, { as: stranger })).status, 404);
    assert.equal((await s.request('GET', `/api/v1/alert-rules/${id}/history`, { as: stranger })).status, 404);
    const list = await s.request('GET', '/api/v1/alert-rules', { as: stranger });
    assert.deepEqual(list.body.items, []);
    for (const minutes of [0, 43201, 'ten', null]) {
      const r = await s.request('PUT', `/api/v1/alert-rules/${id}/silence`, { as: editor, body: { minutes } });
      assert.equal(r.status, 400, String(minutes));
    }
    const silenced = await s.request('PUT', `/api/v1/alert-rules/${id}/silence`, { as: editor, body: { minutes: 60 } });
    assert.equal(silenced.status, 200);
    const until = Date.parse(silenced.body.silencedUntil);
    assert.ok(until > Date.now() + 59 * 60_000 && until <= Date.now() + 60 * 60_000);
    const lifted = await s.request('DELETE', `/api/v1/alert-rules/${id}/silence`, { as: editor });
    assert.equal(lifted.body.silencedUntil, null);
    assert.equal((await s.request('GET', '/api/v1/alert-rules/abc', { as: viewer })).status, 400);
    assert.equal((await s.request('GET', '/api/v1/alert-rules?limit=0', { as: viewer })).status, 400);
    assert.equal((await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor })).status, 204);
    assert.equal((await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer })).status, 404);
  });
});

describe('changing rules and channels', () => {
  test("a rule saved again starts over at ok, runs with the saver's rights, and is refused bad changes", async () => {
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'To change', enabled: false, channelIds: [] }),
    });
    const id = made.body.id;
    await serviceDb.query(`UPDATE alert_rules SET state = 'firing' WHERE id = $1`, [id]);
    const changed = await s.request('PUT', `/api/v1/alert-rules/${id}`, {
      as: admin,
      body: rule({
        name: 'Changed',
        enabled: false,
        condition: { op: 'below', threshold: 3 },
        channelIds: [channels.slack],
      }),
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.name, 'Changed');
    assert.equal(changed.body.state, 'ok');
    assert.equal(changed.body.ownerId, admin.userId);
    assert.deepEqual(changed.body.condition, { op: 'below', threshold: 3, thresholdHigh: null });
    assert.deepEqual(changed.body.channelIds, [channels.slack]);
    const bad = await s.request('PUT', `/api/v1/alert-rules/${id}`, {
      as: editor,
      body: rule({ condition: { op: 'outside', threshold: 1 } }),
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /thresholdHigh: both required/);
    assert.equal((await s.request('PUT', `/api/v1/alert-rules/${id}`, { as: viewer, body: rule() })).status, 403);
    assert.equal((await s.request('PUT', `/api/v1/alert-rules/${id}`, { as: stranger, body: rule() })).status, 404);
    assert.equal((await s.request('PUT', '/api/v1/alert-rules/0', { as: editor, body: rule() })).status, 400);
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('a channel is renamed or pointed elsewhere by an admin, never at the internal network; deleting it unlinks rules', async () => {
    const made = await s.request('POST', '/api/v1/alert-channels', {
      as: admin,
      body: { name: 'Spare', kind: 'webhook', url: hook.url },
    });
    const id = made.body.id;
    const renamed = await s.request('PUT', `/api/v1/alert-channels/${id}`, { as: admin, body: { name: 'Spare hook' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Spare hook');
    assert.equal(renamed.body.target, new URL(hook.url).origin, 'the URL is kept when none is given');
    const inside = await s.request('PUT', `/api/v1/alert-channels/${id}`, {
      as: admin,
      body: { name: 'Spare hook', url: 'http://192.168.1.10/x' },
    });
    assert.equal(inside.status, 400);
    assert.match(inside.body.error.message, /private address/);
    const taken = await s.request('PUT', `/api/v1/alert-channels/${id}`, { as: admin, body: { name: 'Pager hook' } });
    assert.equal(taken.status, 409);
    assert.equal(
      (await s.request('PUT', `/api/v1/alert-channels/${id}`, { as: editor, body: { name: 'x' } })).status,
      403,
    );
    const r = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Uses spare', enabled: false, channelIds: [id] }),
    });
    assert.equal((await s.request('DELETE', `/api/v1/alert-channels/${id}`, { as: admin })).status, 204);
    const after = await s.request('GET', `/api/v1/alert-rules/${r.body.id}`, { as: viewer });
    assert.deepEqual(after.body.channelIds, []);
    assert.equal((await s.request('DELETE', `/api/v1/alert-channels/${id}`, { as: admin })).status, 404);
    await s.request('DELETE', `/api/v1/alert-rules/${r.body.id}`, { as: editor });
  });
});

describe('evaluation against a real PostgreSQL source', () => {
  test('fires: mail, a signed webhook and Slack, each with a link back; then resolves on all three', async () => {
    await setValue(50);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Errors <b>high</b>', savedQueryId: undefined, dashboardId, widgetId: 'errors' }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    const dashboardUrl = `${s.url}/dashboards/${dashboardId}`;

    const fired = await hook.inbox.next((h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === id);
    assert.ok(hook.verifies(fired), 'the receiver computed the same HMAC');
    assert.match(String(fired.headers['webhook-id']), new RegExp(`^msg_alert_${id}_\\d+$`));
    assert.equal(fired.json.data.value, 50);
    assert.equal(fired.json.data.state, 'firing');
    assert.equal(fired.json.data.url, dashboardUrl);
    const firedMail = await mail.inbox.next((m) => m.subject === '[FIRING] Errors <b>high</b>');
    assert.deepEqual(firedMail.to, ['oncall@acme.example']);
    const parts = mimeParts(firedMail.raw);
    const text = parts.find((p) => p.headers['content-type']?.startsWith('text/plain'))!.body.toString();
    const html = parts.find((p) => p.headers['content-type']?.startsWith('text/html'))!.body.toString();
    assert.match(text, new RegExp(`Open: ${dashboardUrl}`));
    assert.match(text, /Value: 50/);
    assert.ok(html.includes('Errors &lt;b&gt;high&lt;/b&gt;'), 'the name is text in the HTML, not markup');
    assert.ok(html.includes(`href="${dashboardUrl}"`));
    const firedSlack = await slack.inbox.next((h) => /FIRING/.test(h.json?.text) && h.json.text.includes('Errors'));
    assert.ok(firedSlack.json.text.includes('&lt;b&gt;'), 'Slack mrkdwn escapes < and >');
    const button = firedSlack.json.blocks.find((b: { type: string }) => b.type === 'actions').elements[0];
    assert.equal(button.url, dashboardUrl);

    const firing = await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer });
    assert.equal(firing.body.state, 'firing');
    assert.equal(firing.body.lastValue, 50);

    // Evaluated again while still breached: no second notification.
    await due(id);
    await setValue(2);
    await due(id);
    const resolved = await hook.inbox.next((h) => h.json?.type === 'alert.resolved' && h.json.data.rule.id === id);
    assert.ok(hook.verifies(resolved));
    assert.equal(resolved.json.data.previousState, 'firing');
    assert.equal(resolved.json.data.state, 'ok');
    await mail.inbox.next((m) => m.subject === '[RESOLVED] Errors <b>high</b>');
    await slack.inbox.next((h) => /RESOLVED/.test(h.json?.text) && h.json.text.includes('Errors'));

    const history = await s.request('GET', `/api/v1/alert-rules/${id}/history`, { as: viewer });
    assert.deepEqual(
      history.body.items.map((h: { from: string; to: string }) => `${h.from}>${h.to}`),
      ['firing>ok', 'ok>firing'],
    );
    await waitForRow(
      'notification_deliveries',
      `SELECT 1 AS done WHERE NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE rule_id = $1 AND status = 'pending')`,
      [id],
    );
    const deliveries = await s.request('GET', `/api/v1/alert-rules/${id}/deliveries`, { as: viewer });
    const sent = deliveries.body.items.filter((d: { status: string }) => d.status === 'sent');
    assert.equal(sent.length, 6, JSON.stringify(deliveries.body));
    const ids = hook.inbox.items.filter((h) => h.json?.data?.rule?.id === id).map((h) => h.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, 'each notification once');
    assert.equal(ids.length, 2);
  });

  test('a pending period holds the breach silent until it has lasted; pending → ok says nothing', async () => {
    await setValue(99);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Slow burn', pendingMinutes: 10, channelIds: [channels.webhook] }),
    });
    const id = made.body.id;
    const pending = await waitForState(id, 'pending');
    assert.match(pending.reason, /pending/);
    // The breach began 11 minutes ago, as far as the rule knows.
    await serviceDb.query(`UPDATE alert_rules SET pending_since = now() - interval '11 minutes' WHERE id = $1`, [id]);
    await due(id);
    const fired = await hook.inbox.next((h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === id);
    assert.match(fired.json.data.reason, /for 10 min/);
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('silenced: the state still changes and is recorded, nothing is sent', async () => {
    await setValue(99);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Hushed', enabled: false, channelIds: [channels.webhook] }),
    });
    const id = made.body.id;
    await s.request('PUT', `/api/v1/alert-rules/${id}/silence`, { as: editor, body: { minutes: 30 } });
    await serviceDb.query('UPDATE alert_rules SET enabled = true, next_eval_at = now() WHERE id = $1', [id]);
    const entry = await waitForState(id, 'firing');
    assert.match(entry.reason, /\(silenced\)/);
    const rows = await serviceDb.query('SELECT count(*)::int AS n FROM notification_deliveries WHERE rule_id = $1', [
      id,
    ]);
    assert.equal(rows.rows[0].n, 0);
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('no data and a query error are states of their own, each notified, and resolve', async () => {
    await setValue(null);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Gaps', channelIds: [channels.webhook] }),
    });
    const id = made.body.id;
    const nodata = await hook.inbox.next((h) => h.json?.type === 'alert.nodata' && h.json.data.rule.id === id);
    assert.equal(nodata.json.data.state, 'nodata');
    await sourceDb.query('ALTER TABLE metric RENAME COLUMN v TO value');
    try {
      await due(id);
      const failed = await hook.inbox.next((h) => h.json?.type === 'alert.error' && h.json.data.rule.id === id);
      assert.match(failed.json.data.reason, /query error/);
      const read = await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer });
      assert.equal(read.body.state, 'error');
      assert.ok(read.body.lastError);
    } finally {
      await sourceDb.query('ALTER TABLE metric RENAME COLUMN value TO v');
    }
    await setValue(3);
    await due(id);
    await hook.inbox.next((h) => h.json?.type === 'alert.resolved' && h.json.data.rule.id === id);
    const noRows = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Empty', condition: { op: 'no_data' }, channelIds: [channels.webhook] }),
    });
    await sourceDb.query('DELETE FROM metric');
    try {
      await due(noRows.body.id);
      const fired = await hook.inbox.next(
        (h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === noRows.body.id,
      );
      assert.equal(fired.json.data.condition, 'no data');
    } finally {
      await sourceDb.query(`INSERT INTO metric VALUES ('errors', 3)`);
    }
    for (const r of [id, noRows.body.id]) await s.request('DELETE', `/api/v1/alert-rules/${r}`, { as: editor });
  });

  test("a saved query's parameters take the rule's values; one the rule lacks is the rule's error", async () => {
    await setValue(40);
    const q = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'By name', dataSourceId: sourceId, query: 'SELECT v FROM metric WHERE name = :metric' },
    });
    const withValue = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({
        name: 'Named',
        savedQueryId: q.body.id,
        parameters: { metric: 'errors' },
        channelIds: [channels.webhook],
      }),
    });
    assert.equal(withValue.status, 201, JSON.stringify(withValue.body));
    assert.deepEqual(withValue.body.parameters, { metric: 'errors' });
    const fired = await hook.inbox.next(
      (h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === withValue.body.id,
    );
    assert.equal(fired.json.data.value, 40);
    const without = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Unnamed', savedQueryId: q.body.id, channelIds: [channels.webhook] }),
    });
    const failed = await hook.inbox.next(
      (h) => h.json?.type === 'alert.error' && h.json.data.rule.id === without.body.id,
    );
    assert.match(failed.json.data.reason, /metric/);
    const bad = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ parameters: { 'not a name': 1 } }),
    });
    assert.equal(bad.status, 400);
    for (const id of [withValue.body.id, without.body.id])
      await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('a webhook that fails is retried with the same webhook-id until it takes the notification', async () => {
    await setValue(77);
    hook.answers.push(503);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Retried', channelIds: [channels.webhook] }),
    });
    const id = made.body.id;
    const failedOnce = await new Promise<string>((resolve) => {
      const check = () => {
        const h = hook.refused.find((x) => x.json?.data?.rule?.id === id);
        if (h) resolve(String(h.headers['webhook-id']));
        else setImmediate(check);
      };
      check();
    });
    // The backoff's first delay is seconds: brought forward rather than waited for.
    await serviceDb.query(
      `UPDATE notification_deliveries SET next_attempt_at = now() WHERE rule_id = $1 AND status = 'pending'`,
      [id],
    );
    const taken = await hook.inbox.next((h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === id);
    assert.equal(taken.headers['webhook-id'], failedOnce);
    const d = await waitForRow(
      'notification_deliveries',
      `SELECT status, attempts FROM notification_deliveries WHERE rule_id = $1 AND status <> 'pending'`,
      [id],
    );
    assert.deepEqual(d, { status: 'sent', attempts: 2 });
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });
});

describe('reminders while a rule stays firing (repeatMinutes)', () => {
  /** Moves a rule's reminder clock back: as if it last notified `minutes` ago, not waited for. */
  const notifiedAgo = (ruleId: number, minutes: number) =>
    serviceDb.query(
      `UPDATE alert_rules SET last_notified_at = now() - make_interval(mins => $2), next_eval_at = now() WHERE id = $1`,
      [ruleId, minutes],
    );
  /** The rule's n-th evaluation is committed, with whatever it queued (one transaction). */
  const evaluated = (ruleId: number, n: number) =>
    waitForRow('alert_rules', 'SELECT evaluations FROM alert_rules WHERE id = $1 AND evaluations >= $2', [ruleId, n]);
  const queued = async (ruleId: number) =>
    (
      await serviceDb.query<{ event_id: string; type: string; reminder: boolean | null }>(
        `SELECT event_id, payload->>'type' AS type, (payload->'data'->>'reminder')::boolean AS reminder
           FROM notification_deliveries WHERE rule_id = $1 AND channel_id = $2 ORDER BY id`,
        [ruleId, channels.webhook],
      )
    ).rows;

  test('bad repeat values are clear 400s, on create and on change; null and absent mean never', async () => {
    const cases: [unknown, RegExp][] = [
      [rule({ repeatMinutes: 4 }), /repeatMinutes must be >= 5$/],
      [rule({ repeatMinutes: 10081 }), /repeatMinutes must be <= 10080$/],
      [rule({ repeatMinutes: 1.5 }), /repeatMinutes must be integer/],
      [rule({ repeatMinutes: 'ten' }), /repeatMinutes must be integer/],
      [rule({ intervalMinutes: 60, repeatMinutes: 30 }), /repeatMinutes: must be at least intervalMinutes \(60\)/],
    ];
    for (const [body, message] of cases) {
      const r = await s.request('POST', '/api/v1/alert-rules', { as: editor, body });
      assert.equal(r.status, 400, JSON.stringify(body) + JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, message, JSON.stringify(r.body));
    }
    const never = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Never reminds', enabled: false, channelIds: [] }),
    });
    assert.equal(never.status, 201, JSON.stringify(never.body));
    assert.equal(never.body.repeatMinutes, null);
    assert.equal(never.body.lastNotifiedAt, null);
    const id = never.body.id;
    const daily = await s.request('PUT', `/api/v1/alert-rules/${id}`, {
      as: editor,
      body: rule({ name: 'Never reminds', enabled: false, channelIds: [], intervalMinutes: 5, repeatMinutes: 1440 }),
    });
    assert.equal(daily.status, 200, JSON.stringify(daily.body));
    assert.equal(daily.body.repeatMinutes, 1440);
    const tooOften = await s.request('PUT', `/api/v1/alert-rules/${id}`, {
      as: editor,
      body: rule({ enabled: false, channelIds: [], intervalMinutes: 10080, repeatMinutes: 1440 }),
    });
    assert.equal(tooOften.status, 400);
    assert.match(tooOften.body.error.message, /at least intervalMinutes \(10080\)/);
    const cleared = await s.request('PUT', `/api/v1/alert-rules/${id}`, {
      as: editor,
      body: rule({ name: 'Never reminds', enabled: false, channelIds: [], repeatMinutes: null }),
    });
    assert.equal(cleared.body.repeatMinutes, null);
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('reminds once per repeat period while firing, never before; resolved afterwards is sent once', async () => {
    await setValue(50);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Nagging', repeatMinutes: 60, channelIds: [channels.webhook, channels.email] }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.repeatMinutes, 60);
    const id = made.body.id;
    await evaluated(id, 1);
    const fired = await hook.inbox.next((h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === id);
    assert.equal(fired.json.data.reminder, false);
    const firing = await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer });
    assert.ok(firing.body.lastNotifiedAt, 'the firing started the reminder clock');

    // Evaluated again at once, then a minute short of the period: still firing, nothing queued.
    await due(id);
    await evaluated(id, 2);
    await notifiedAgo(id, 59);
    await evaluated(id, 3);
    assert.equal((await queued(id)).length, 1);

    // The period is over: one reminder, with its own webhook-id, telling why.
    await notifiedAgo(id, 60);
    await evaluated(id, 4);
    const reminded = await hook.inbox.next((h) => h.json?.data?.reminder === true && h.json.data.rule.id === id);
    assert.ok(hook.verifies(reminded));
    assert.equal(reminded.json.type, 'alert.firing', 'the type of the state it reminds of');
    assert.equal(reminded.headers['webhook-id'], `msg_alert_${id}_4`);
    assert.equal(reminded.json.data.state, 'firing');
    assert.match(reminded.json.data.reason, /value 50 is above 10; firing since .+, a reminder every 60 min/);
    const mailed = await mail.inbox.next((m) => m.subject === '[REMINDER: FIRING] Nagging');
    const mailText = mimeParts(mailed.raw).find((p) => p.headers['content-type']?.startsWith('text/plain'))!;
    assert.match(mailText.body.toString(), /State: still firing/);
    const after = await s.request('GET', `/api/v1/alert-rules/${id}`, { as: viewer });
    assert.ok(Date.parse(after.body.lastNotifiedAt) > Date.parse(firing.body.lastNotifiedAt), 'the clock moved on');

    // Right after a reminder: none again until another period has passed.
    await due(id);
    await evaluated(id, 5);
    assert.deepEqual(
      (await queued(id)).map((d) => [d.event_id, d.type, d.reminder]),
      [
        [`msg_alert_${id}_1`, 'alert.firing', false],
        [`msg_alert_${id}_4`, 'alert.firing', true],
      ],
    );

    // Back to ok: one resolved, not a reminder; ok stays quiet however old the clock.
    await setValue(2);
    await due(id);
    await evaluated(id, 6);
    const resolved = await hook.inbox.next((h) => h.json?.type === 'alert.resolved' && h.json.data.rule.id === id);
    assert.equal(resolved.json.data.reminder, false);
    await notifiedAgo(id, 600);
    await evaluated(id, 7);
    assert.deepEqual(
      (await queued(id)).map((d) => d.type),
      ['alert.firing', 'alert.firing', 'alert.resolved'],
    );
    const deliveries = await s.request('GET', `/api/v1/alert-rules/${id}/deliveries`, { as: viewer });
    const reminders = deliveries.body.items.filter((d: { reminder: boolean }) => d.reminder);
    assert.equal(reminders.length, 2, 'the reminder, to the webhook and the mail');
    assert.match(reminders[0].reason, /a reminder every 60 min/);
    const history = await s.request('GET', `/api/v1/alert-rules/${id}/history`, { as: viewer });
    assert.deepEqual(
      history.body.items.map((h: { from: string; to: string }) => `${h.from}>${h.to}`),
      ['firing>ok', 'ok>firing'],
      'a reminder is no change of state',
    );
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('a silence swallows reminders and leaves no burst behind; the clock goes on from the last one swallowed', async () => {
    await setValue(50);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Hushed nagging', repeatMinutes: 5, channelIds: [channels.webhook] }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    await evaluated(id, 1);
    assert.equal((await queued(id)).length, 1);
    await s.request('PUT', `/api/v1/alert-rules/${id}/silence`, { as: editor, body: { minutes: 60 } });
    // Silenced for what would have been many periods: each evaluation's reminder is swallowed.
    await notifiedAgo(id, 300);
    await evaluated(id, 2);
    await notifiedAgo(id, 5);
    await evaluated(id, 3);
    assert.equal((await queued(id)).length, 1, 'nothing queued while silenced');
    const clock = await serviceDb.query(
      `SELECT last_notified_at > now() - interval '1 minute' AS moved FROM alert_rules WHERE id = $1`,
      [id],
    );
    assert.equal(clock.rows[0].moved, true, 'a swallowed reminder moves the clock too');
    // The silence ends: no reminder for the periods it covered, the next one a period after the last swallowed.
    await s.request('DELETE', `/api/v1/alert-rules/${id}/silence`, { as: editor });
    await due(id);
    await evaluated(id, 4);
    assert.equal((await queued(id)).length, 1, 'no burst when the silence ends');
    await notifiedAgo(id, 5);
    await evaluated(id, 5);
    assert.deepEqual(
      (await queued(id)).map((d) => [d.event_id, d.reminder]),
      [
        [`msg_alert_${id}_1`, false],
        [`msg_alert_${id}_5`, true],
      ],
    );
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('no reminder without repeatMinutes, however long the rule fires', async () => {
    await setValue(50);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Says it once', channelIds: [channels.webhook] }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    await evaluated(id, 1);
    await serviceDb.query(`UPDATE alert_rules SET state_since = now() - interval '30 days' WHERE id = $1`, [id]);
    await notifiedAgo(id, 43200);
    await evaluated(id, 2);
    assert.deepEqual(
      (await queued(id)).map((d) => d.type),
      ['alert.firing'],
    );
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });

  test('no data and errors are reminded of too, each with its own type', async () => {
    await setValue(null);
    const made = await s.request('POST', '/api/v1/alert-rules', {
      as: editor,
      body: rule({ name: 'Gap reminder', repeatMinutes: 5, channelIds: [channels.webhook] }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id;
    await evaluated(id, 1);
    await notifiedAgo(id, 5);
    await evaluated(id, 2);
    await setValue(3);
    assert.deepEqual(
      (await queued(id)).map((d) => [d.type, d.reminder]),
      [
        ['alert.nodata', false],
        ['alert.nodata', true],
      ],
    );
    await s.request('DELETE', `/api/v1/alert-rules/${id}`, { as: editor });
  });
});

/** The history entry that brought a rule into `state`. */
const waitForState = (ruleId: number, state: string) =>
  waitForRow<{ reason: string }>(
    'alert_state_history',
    'SELECT reason FROM alert_state_history WHERE rule_id = $1 AND to_state = $2 ORDER BY id DESC LIMIT 1',
    [ruleId, state],
  );

/** The first row a query answers, asked again each time the table changes (a trigger's NOTIFY, no polling). */
async function waitForRow<T>(table: string, sql: string, params: unknown[]): Promise<T> {
  const listener = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
  await listener.connect();
  try {
    await listener.query(`CREATE OR REPLACE FUNCTION test_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('changed_' || TG_TABLE_NAME, ''); RETURN NULL; END $$`);
    await listener.query(`CREATE OR REPLACE TRIGGER test_changed_notify AFTER INSERT OR UPDATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION test_changed_notify()`);
    await listener.query(`LISTEN changed_${table}`);
    for (;;) {
      const notified = new Promise((resolve) => listener.once('notification', resolve));
      const r = await listener.query(sql, params);
      if (r.rows[0]) return r.rows[0] as T;
      await notified;
    }
  } finally {
    await listener.end();
  }
}
