import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomToken, seal } from '../../src/kit/crypto.ts';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { ingestService } from '../../src/ingest/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { tempDir } from '../support/tmp.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import {
  createDestination,
  deadLetters,
  FAST_FORWARDING,
  LOCAL_RECEIVERS,
  sendEvents,
  waitFor,
} from './forwarding-helpers.ts';

// Webhook URLs like Slack's or Zapier's are themselves the secret: whoever knows one can post to the channel.
const SECRET_KEY = 'd'.repeat(64);
let h: IngestHarness;
let projectId: string;
let key: string;
const receivers: WebhookReceiver[] = [];

before(async () => {
  h = await startIngest({ PLATFORM_SECRET_KEY: SECRET_KEY, ...FAST_FORWARDING }, 'fwdurl');
  ({ projectId, key } = await h.project());
});

after(async () => {
  await h.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

const secretPath = () => `/services/T0${randomToken(4)}/B0${randomToken(4)}/${randomToken(18)}`;

const patch = (id: string, payload: unknown) =>
  h.app.inject({
    method: 'PATCH',
    url: `/api/v1/destinations/${id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: payload as object,
  });

/** Every column of the destination's row, as text, so a test can look for the URL anywhere in it. */
async function rowText(id: string): Promise<string> {
  const row = (await h.sql.query('SELECT * FROM ingest.destinations WHERE id = $1', [id])).rows[0];
  assert.ok(row, `no row ${id}`);
  return JSON.stringify(row);
}

function assertHidden(text: string, path: string, where: string) {
  // The last segment alone is the token in Slack's and Zapier's URLs: it must not appear, in any encoding.
  const token = path.split('/').at(-1)!;
  assert.ok(!text.includes(token), `${where} shows the URL's secret part: ${text}`);
  assert.ok(!text.includes(encodeURIComponent(path)), `${where} shows the URL encoded: ${text}`);
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env = {
    DATABASE_URL: h.database.url,
    DATA_DIR: '/nonexistent-unused',
    LOG_LEVEL: 'silent',
    PLATFORM_SECRET_KEY: SECRET_KEY,
    ...LOCAL_RECEIVERS,
  };
  const out: string[] = [];
  const err: string[] = [];
  const code = await ingestService.load(env).command!(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('a webhook URL with a path is stored sealed and shown only as scheme, host and port, yet delivery uses it whole', async () => {
  const r = await receiver();
  const path = secretPath();
  const created = await createDestination(h, projectId, {
    name: 'slack',
    kind: 'webhook',
    base_url: `${r.url}${path}?token=abc123def456`,
  });
  r.secret = created.secret;
  assert.equal(created.base_url, `${r.url}/…`);
  assertHidden(JSON.stringify(created), path, 'the create answer');
  assert.ok(!JSON.stringify(created).includes('abc123def456'), 'the create answer shows the query');

  const row = await rowText(created.id);
  assertHidden(row, path, 'the destinations row');
  assert.ok(!row.includes('abc123def456'), 'the destinations row shows the query');

  const got = await h.admin('GET', `/api/v1/destinations/${created.id}`);
  assert.equal(got.json().base_url, `${r.url}/…`);
  assertHidden(got.body, path, 'the get answer');
  const listed = await h.admin('GET', `/api/v1/projects/${projectId}/destinations`);
  assert.equal(listed.statusCode, 200);
  assertHidden(listed.body, path, 'the list answer');

  const shown = await cli('destinations', 'list', projectId);
  assert.equal(shown.code, 0, shown.err);
  assert.ok(shown.out.includes(`${r.url}/…`), shown.out);
  assertHidden(shown.out, path, 'the CLI list');

  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  await waitFor('the event at the receiver', () => r.arrivals.get(String(event.event_id)));
  const request = r.received.find((q) => q.method === 'POST')!;
  assert.equal(request.url.pathname, path);
  assert.equal(request.url.searchParams.get('token'), 'abc123def456');
  await h.admin('DELETE', `/api/v1/destinations/${created.id}`);
});

test('a URL without a path is shown as it is, and a vendor default too', async () => {
  const plain = await createDestination(h, projectId, {
    name: 'root',
    kind: 'webhook',
    base_url: 'https://hooks.example.com:8443',
  });
  assert.equal(plain.base_url, 'https://hooks.example.com:8443/');
  const posthog = await createDestination(h, projectId, {
    name: 'ph',
    kind: 'posthog',
    credentials: { api_key: 'phc_123456' },
    base_url: 'https://eu.i.posthog.com/ingest/xyz',
  });
  assert.equal(posthog.base_url, 'https://eu.i.posthog.com/…');
  assertHidden(await rowText(posthog.id), '/ingest/xyz', 'the posthog row');
  await h.admin('DELETE', `/api/v1/destinations/${plain.id}`);
  await h.admin('DELETE', `/api/v1/destinations/${posthog.id}`);
});

test('a new URL given through the admin API is sealed and used by the next delivery', async () => {
  const first = await receiver();
  const second = await receiver();
  const d = await createDestination(h, projectId, {
    name: 'moving',
    kind: 'webhook',
    base_url: `${first.url}${secretPath()}`,
  });
  first.secret = d.secret;
  second.secret = d.secret;
  const e1 = makeEvent(projectId);
  await sendEvents(h, key, [e1]);
  await waitFor('the first event at the first receiver', () => first.arrivals.get(String(e1.event_id)));

  const path = secretPath();
  const changed = await patch(d.id, { base_url: `${second.url}${path}` });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal(changed.json().base_url, `${second.url}/…`);
  assertHidden(changed.body, path, 'the update answer');
  assertHidden(await rowText(d.id), path, 'the updated row');

  const e2 = makeEvent(projectId);
  await sendEvents(h, key, [e2]);
  await waitFor('the second event at the second receiver', () => second.arrivals.get(String(e2.event_id)));
  assert.equal(first.arrivals.get(String(e2.event_id)), undefined);
  assert.equal(second.received.at(-1)!.url.pathname, path);
  await h.admin('DELETE', `/api/v1/destinations/${d.id}`);
});

test('the CLI changes a URL, taken from the environment so it stays out of the shell history', async () => {
  const r = await receiver();
  const d = await createDestination(h, projectId, {
    name: 'cli-moved',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/old',
  });
  r.secret = d.secret;
  const path = secretPath();
  process.env.INGEST_TEST_WEBHOOK_URL = `${r.url}${path}`;
  const changed = await cli('destinations', 'set-url', d.id, 'env:INGEST_TEST_WEBHOOK_URL');
  delete process.env.INGEST_TEST_WEBHOOK_URL;
  assert.equal(changed.code, 0, changed.err);
  assert.ok(changed.out.includes(`${r.url}/…`), changed.out);
  assertHidden(changed.out, path, 'the CLI answer');
  assertHidden(await rowText(d.id), path, 'the row changed by the CLI');
  const e = makeEvent(projectId);
  await sendEvents(h, key, [e]);
  await waitFor('the event at the new URL', () => r.arrivals.get(String(e.event_id)));
  assert.equal(r.received.at(-1)!.url.pathname, path);

  const bad = await cli('destinations', 'set-url', d.id, 'ftp://x.example.com/y');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /base_url: must be an absolute http or https URL/);
  assert.equal((await cli('destinations', 'set-url', 'dst_missing', 'https://example.com/')).code, 1);
  assert.equal((await cli('destinations', 'set-url', d.id)).code, 2);
  await h.admin('DELETE', `/api/v1/destinations/${d.id}`);
});

test('a refusal or redirect echoing the URL reaches neither dead letters, the outbox nor the admin API in clear', async () => {
  const r = await receiver();
  const path = secretPath();
  const d = await createDestination(h, projectId, { name: 'echo', kind: 'webhook', base_url: `${r.url}${path}` });
  r.answerFor = (q) => ({
    status: 404,
    body: { error: `Cannot POST ${q.url.pathname} (${q.url.href}, ${encodeURIComponent(q.url.pathname)})` },
  });
  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  const [letter] = await waitFor('a dead letter', async () => {
    const letters = await deadLetters(h, d.id);
    return letters.length > 0 ? letters : undefined;
  });
  assert.match(letter!.reason, /^HTTP 404/);
  assert.ok(letter!.reason.includes('/…'), letter!.reason);
  assertHidden(letter!.reason, path, 'the dead letter');

  // A receiver moved to a trailing-slash address redirects there, naming the URL in Location.
  const movedPath = secretPath();
  const moved = await patch(d.id, { base_url: `${r.url}${movedPath}` });
  assert.equal(moved.statusCode, 200);
  r.answerFor = (q) => ({ status: 308, headers: { location: `${q.url.href}/` }, body: { at: q.url.pathname } });
  await sendEvents(h, key, [makeEvent(projectId)]);
  const last = await waitFor('the redirect refused', async () => {
    const rows = (
      await h.sql.query('SELECT last_error FROM ingest.outbox WHERE destination_id = $1 AND last_error IS NOT NULL', [
        d.id,
      ])
    ).rows;
    const letters = await deadLetters(h, d.id);
    return letters.length > 1 ? letters.at(-1)!.reason : rows[0]?.last_error;
  });
  assert.match(last, /redirects are not followed/);
  assertHidden(last, movedPath, 'the redirect reason');
  await h.admin('DELETE', `/api/v1/destinations/${d.id}`);
});

async function insertOldRow(url: string): Promise<string> {
  const id = `dst_${randomToken(12)}`;
  const sealedCredentials = seal(
    Buffer.from(SECRET_KEY, 'hex'),
    JSON.stringify({ secret: 'old_format_secret_0123' }),
    `ingest.destination:${id}`,
  );
  await h.sql.query(
    `INSERT INTO ingest.destinations (id, project_id, name, kind, base_url, credentials_sealed, credential_fields) VALUES ($1, $2, $3, 'webhook', $4, $5, '{secret}')`,
    [id, projectId, `old-${id}`, url, sealedCredentials],
  );
  return id;
}

test('a destination written before URLs were sealed still delivers, is shown redacted and gets sealed on first use', async () => {
  const r = await receiver();
  r.secret = 'old_format_secret_0123';
  const path = secretPath();
  const id = await insertOldRow(`${r.url}${path}`);

  const got = await h.admin('GET', `/api/v1/destinations/${id}`);
  assert.equal(got.json().base_url, `${r.url}/…`);
  assertHidden(got.body, path, 'the get answer of an old row');
  assertHidden((await cli('destinations', 'list', projectId)).out, path, 'the CLI list of an old row');

  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  await waitFor("the event at the old row's URL", () => r.arrivals.get(String(event.event_id)));
  assert.equal(r.received.at(-1)!.url.pathname, path);
  await waitFor('the old row sealed', async () => !(await rowText(id)).includes(path.split('/').at(-1)!));
  const again = makeEvent(projectId);
  await sendEvents(h, key, [again]);
  await waitFor('the next event, from the sealed URL', () => r.arrivals.get(String(again.event_id)));
  await h.admin('DELETE', `/api/v1/destinations/${id}`);
});

test('an instance starting seals every URL still kept in clear', async () => {
  const paths = [secretPath(), secretPath()];
  const ids = [
    await insertOldRow(`https://hooks.example.com${paths[0]}`),
    await insertOldRow(`http://127.0.0.1:9${paths[1]}?x=1`),
  ];
  const dataDir = tempDir();
  const app = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: h.database.url,
      DATA_DIR: dataDir.path,
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      PLATFORM_SECRET_KEY: SECRET_KEY,
    }),
  );
  try {
    await app.ready();
    for (const [i, id] of ids.entries()) {
      const row = (await h.sql.query('SELECT base_url, base_url_sealed FROM ingest.destinations WHERE id = $1', [id]))
        .rows[0];
      assert.equal(row.base_url, i === 0 ? 'https://hooks.example.com/…' : 'http://127.0.0.1:9/…');
      assert.ok(row.base_url_sealed);
      assertHidden(await rowText(id), paths[i]!, 'a row sealed at start');
    }
  } finally {
    await app.close();
    dataDir.remove();
    for (const id of ids) await h.admin('DELETE', `/api/v1/destinations/${id}`);
  }
});
