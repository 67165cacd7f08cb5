import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { MailCatcher, mimeParts, type ReceivedMail } from './alert-receivers.ts';
import { nextRun } from '../../src/dashboard/subscriptions/schedule.ts';

let source: FreshDatabase;
let serviceDb: pg.Client;
let s: DashboardServer;
let editor: SignedIn;
let viewer: SignedIn;
let stranger: SignedIn;
let dashboardId: number;
const mail = new MailCatcher();

before(async () => {
  await mail.start();
  source = await freshPostgres('subsrc');
  const c = new pg.Client({ connectionString: source.url });
  await c.connect();
  await c.query(`CREATE TABLE sales (region text, product text, amount int);
    INSERT INTO sales VALUES ('north', 'apples', 12), ('north', 'pears', 3), ('south', 'plums', 7), ('south', 'figs', 4);`);
  await c.end();
  s = await startDashboard('subscriptions', {
    DASHBOARD_SMTP_URL: mail.url,
    DASHBOARD_MAIL_FROM: 'reports@dash.example',
    DASHBOARD_SCHEDULER_TICK_MS: '100',
  });
  serviceDb = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
  await serviceDb.connect();
  const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor', email: 'eddie@acme.example' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
  const ds = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: source.url },
  });
  const d = await s.request('POST', '/api/v1/dashboards', {
    as: editor,
    body: {
      slug: 'regional',
      title: 'Regional sales',
      definition: {
        layout: { type: 'grid', columns: 12, rowHeight: 30 },
        dataSources: [{ id: ds.body.id }],
        parameters: [
          { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'], default: 'north' },
        ],
        widgets: [
          {
            id: 'products',
            type: 'table',
            title: 'Products',
            position: { x: 0, y: 0, w: 6, h: 6 },
            dataSourceId: ds.body.id,
            query: 'SELECT product, amount FROM sales WHERE region = :region ORDER BY product',
          },
          {
            id: 'total',
            type: 'stat',
            title: 'Total',
            position: { x: 6, y: 0, w: 3, h: 3 },
            dataSourceId: ds.body.id,
            query: 'SELECT sum(amount) AS total FROM sales WHERE region = :region',
          },
          { id: 'about', type: 'text', position: { x: 6, y: 3, w: 3, h: 3 }, options: { markdown: 'Units sold.' } },
        ],
      },
    },
  });
  assert.equal(d.status, 201, JSON.stringify(d.body));
  dashboardId = d.body.id;
});

after(async () => {
  await serviceDb?.end();
  await s?.close();
  await source?.drop();
  await mail.close();
});

const body = (over: Record<string, unknown> = {}) => ({
  schedule: { frequency: 'daily', hour: 7, minute: 30, timezone: 'Europe/Paris' },
  recipients: { userIds: [editor.userId], addresses: ['boss@acme.example'] },
  parameters: { region: 'south' },
  ...over,
});

/** The attachments of a mail: file name, type and decoded bytes. */
function attachments(m: ReceivedMail) {
  return mimeParts(m.raw)
    .filter((p) => /attachment|inline/i.test(p.headers['content-disposition'] ?? ''))
    .map((p) => ({
      filename: /filename="?([^";]+)"?/i.exec(p.headers['content-disposition'] ?? '')?.[1] ?? '',
      type: (p.headers['content-type'] ?? '').split(';')[0],
      body: p.body,
    }));
}

describe('subscription routes', () => {
  test('bad subscriptions are clear 400s; viewers may not; another tenant sees nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [body({ recipients: {} }), /at least one user or address/],
      [body({ schedule: { frequency: 'daily', timezone: 'Mars/Olympus' } }), /not an IANA time zone/],
      [body({ schedule: { frequency: 'daily', hour: 24 } }), /hour/],
      [body({ schedule: { frequency: 'monthly' } }), /frequency/],
      [body({ parameters: { nope: 'x' } }), /no such parameter/],
      [body({ parameters: { region: 'west' } }), /must be one of north, south/],
      [body({ recipients: { userIds: [stranger.userId] } }), /no active user/],
      [body({ recipients: { addresses: ['not-an-address'] } }), /addresses/],
      [body({ extra: true }), /extra|additional/],
    ];
    for (const [b, message] of cases) {
      const r = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: editor, body: b });
      assert.equal(r.status, 400, JSON.stringify(b) + JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, message, JSON.stringify(r.body));
    }
    const asViewer = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, {
      as: viewer,
      body: body(),
    });
    assert.equal(asViewer.status, 403);
    const other = await s.request('GET', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: stranger });
    assert.equal(other.status, 404);
    assert.equal((await s.request('POST', '/api/v1/subscriptions/999999/send', { as: editor })).status, 404);
  });

  test("the next send is the schedule's wall-clock time in its zone", async () => {
    const r = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: editor, body: body() });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const next = new Date(r.body.nextRunAt);
    const paris = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Paris',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(next);
    assert.equal(paris, '07:30');
    assert.ok(next.getTime() > Date.now() && next.getTime() <= Date.now() + 86_400_000);
    assert.equal((await s.request('DELETE', `/api/v1/subscriptions/${r.body.id}`, { as: editor })).status, 204);
  });
});

describe('sending a subscription', () => {
  test('send now: one mail to each recipient with a real PNG of the page and each widget as CSV, parameters fixed', async () => {
    const r = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: editor, body: body() });
    const id = r.body.id;
    const sent = await s.request('POST', `/api/v1/subscriptions/${id}/send`, { as: editor });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.ok, true, sent.body.detail);
    const m = await mail.inbox.next((x) => x.subject === 'Dashboard: Regional sales');
    assert.deepEqual(m.to.sort(), ['boss@acme.example', 'eddie@acme.example']);
    const files = attachments(m);
    const png = files.find((f) => f.type === 'image/png')!;
    assert.ok(png, 'a PNG is attached');
    assert.deepEqual([...png.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    mkdirSync('test-artifacts/dashboard-web', { recursive: true });
    writeFileSync('test-artifacts/dashboard-web/subscription-mail.png', png.body);
    assert.equal(png.body.readUInt32BE(16), 1280, 'as wide as the page was rendered');
    const height = png.body.readUInt32BE(20);
    assert.ok(height > 300 && height < 900, `down to the end of the widgets, not of the 900 px window: ${height} px`);
    assert.ok(png.body.length > 10_000, `a real picture, not a blank: ${png.body.length} bytes`);
    const products = files.find((f) => f.filename === 'products.csv')!;
    assert.equal(products.body.toString('utf8'), 'product,amount\r\nfigs,4\r\nplums,7');
    const total = files.find((f) => f.filename === 'total.csv')!;
    assert.equal(total.body.toString('utf8'), 'total\r\n11');
    assert.equal(files.filter((f) => f.type === 'text/csv').length, 2, 'the text widget has no data');
    const text = mimeParts(m.raw)
      .find((p) => p.headers['content-type']?.startsWith('text/plain'))!
      .body.toString();
    assert.match(text, /With region = south/);
    assert.match(text, new RegExp(`Open the dashboard: ${s.url}/dashboards/${dashboardId}`));
    const html = mimeParts(m.raw)
      .find((p) => p.headers['content-type']?.startsWith('text/html'))!
      .body.toString();
    assert.match(html, /<img src="cid:dashboard-image"/);

    const credentials = await serviceDb.query(
      `SELECT count(*) FILTER (WHERE revoked_at IS NULL)::int AS live, count(*)::int AS made FROM sessions
        WHERE provider = 'subscription-render'`,
    );
    assert.deepEqual(credentials.rows[0], { live: 0, made: 1 }, 'the render credential is revoked once used');
    await s.request('DELETE', `/api/v1/subscriptions/${id}`, { as: editor });
  });

  test('on schedule: sent once for its slot by the scheduler, then set to the next slot', async () => {
    const r = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, {
      as: editor,
      body: body({ recipients: { addresses: ['weekly@acme.example'] }, parameters: {} }),
    });
    const id = r.body.id;
    const slot = await serviceDb.query(
      `UPDATE dashboard_subscriptions SET next_run_at = date_trunc('second', now()) WHERE id = $1 RETURNING next_run_at`,
      [id],
    );
    const m = await mail.inbox.next((x) => x.to.includes('weekly@acme.example'));
    const products = attachments(m).find((f) => f.filename === 'products.csv')!;
    assert.equal(products.body.toString('utf8'), 'product,amount\r\napples,12\r\npears,3', 'the default, north');
    const read = await waitForSent(id);
    assert.equal(read.scheduled_for.getTime(), slot.rows[0].next_run_at.getTime());
    const after = await s.request('GET', `/api/v1/subscriptions/${id}`, { as: editor });
    assert.ok(Date.parse(after.body.nextRunAt) > Date.now());
    assert.ok(after.body.lastSentAt);
    assert.equal(mail.inbox.items.filter((x) => x.to.includes('weekly@acme.example')).length, 1);
  });
});

describe('schedules', () => {
  test('daily in a zone with DST, weekly on a day, hourly at a minute', () => {
    const paris = { frequency: 'daily' as const, hour: 7, minute: 30, weekday: 1, timezone: 'Europe/Paris' };
    assert.equal(nextRun(paris, new Date('2026-03-28T10:00:00Z')).toISOString(), '2026-03-29T05:30:00.000Z');
    assert.equal(nextRun(paris, new Date('2026-03-27T10:00:00Z')).toISOString(), '2026-03-28T06:30:00.000Z');
    const weekly = { ...paris, frequency: 'weekly' as const, weekday: 1, timezone: 'UTC' };
    assert.equal(nextRun(weekly, new Date('2026-11-26T12:00:00Z')).toISOString(), '2026-11-30T07:30:00.000Z');
    const hourly = { ...paris, frequency: 'hourly' as const, minute: 15, timezone: 'Asia/Kolkata' };
    assert.equal(nextRun(hourly, new Date('2026-11-26T12:00:00Z')).toISOString(), '2026-11-26T12:45:00.000Z');
  });
});

async function waitForSent(id: number): Promise<{ scheduled_for: Date }> {
  const listener = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
  await listener.connect();
  try {
    await listener.query(`CREATE OR REPLACE FUNCTION test_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('changed', ''); RETURN NULL; END $$`);
    await listener.query(`CREATE OR REPLACE TRIGGER test_changed_notify AFTER INSERT OR UPDATE ON subscription_runs
      FOR EACH STATEMENT EXECUTE FUNCTION test_changed_notify()`);
    await listener.query('LISTEN changed');
    for (;;) {
      const notified = new Promise((resolve) => listener.once('notification', resolve));
      const r = await listener.query(
        `SELECT scheduled_for FROM subscription_runs WHERE subscription_id = $1 AND status = 'sent'`,
        [id],
      );
      if (r.rows[0]) return r.rows[0];
      await notified;
    }
  } finally {
    await listener.end();
  }
}
