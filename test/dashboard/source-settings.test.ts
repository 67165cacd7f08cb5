import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../src/kit/app.ts';
import { buildDashboardApp } from '../../src/dashboard/app.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/**
 * A data source's settings (its URL decrypted, its pool's fingerprint) are opened once per version of the source on
 * each instance, not at every query, and a change made on any instance is used at the next query everywhere. Counted
 * by the service's own metric, `dashboard_datasource_settings_opened_total`, read from GET /metrics.
 */
let s: DashboardServer;
/** A second instance of the service on the same database, as behind a load balancer. */
let other: App;
let first: FreshDatabase;
let second: FreshDatabase;
let admin: SignedIn;
let editor: SignedIn;

const nameOf = (db: FreshDatabase) => new URL(db.url).pathname.slice(1);

async function opened(app: App): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  const m = /^dashboard_datasource_settings_opened_total (\d+)$/m.exec(res.body);
  assert.ok(m, 'the metric dashboard_datasource_settings_opened_total is served');
  return Number(m[1]);
}

/** Runs `SELECT current_database()` on the source through `app`, as the editor; answers the database's name. */
async function databaseSeenBy(app: App, id: number): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/datasources/${id}/query`,
    headers: { ...editor.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ query: 'SELECT current_database() AS db' }),
  });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body).rows[0].db;
}

let counter = 0;
async function createSource(url: string): Promise<number> {
  const r = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Warehouse', slug: `settings-${++counter}`, type: 'postgres', connectionUrl: url },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

async function update(id: number, body: Record<string, unknown>): Promise<void> {
  const r = await s.request('PUT', `/api/v1/datasources/${id}`, { as: admin, body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

before(async () => {
  first = await freshPostgres('settingsa');
  second = await freshPostgres('settingsb');
  s = await startDashboard('settings');
  other = await buildDashboardApp(s.config);
  admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor' });
});

after(async () => {
  await other?.close();
  await s?.close();
  await first?.drop();
  await second?.drop();
});

describe("a data source's settings are opened once per version of the source", () => {
  test('many queries open the URL once; each change of the source opens it once more', async () => {
    const id = await createSource(first.url);
    const start = await opened(s.app);
    for (let i = 0; i < 5; i++) assert.equal(await databaseSeenBy(s.app, id), nameOf(first));
    const adHoc = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: id, query: 'SELECT 1 AS one' },
    });
    assert.equal(adHoc.status, 200, JSON.stringify(adHoc.body));
    const schema = await s.request('GET', `/api/v1/datasources/${id}/schema`, { as: editor });
    assert.equal(schema.status, 200, JSON.stringify(schema.body));
    assert.equal(await opened(s.app), start + 1);

    // A change that leaves the connection alone (the name) is still a new version: opened again, once.
    await update(id, { name: 'Warehouse (renamed)' });
    for (let i = 0; i < 3; i++) assert.equal(await databaseSeenBy(s.app, id), nameOf(first));
    assert.equal(await opened(s.app), start + 2);

    // A new URL: the next queries reach the new database, and it is opened once.
    await update(id, { connectionUrl: second.url });
    for (let i = 0; i < 3; i++) assert.equal(await databaseSeenBy(s.app, id), nameOf(second));
    assert.equal(await opened(s.app), start + 3);
  });

  test('a change made on another instance is used there at the next query, never the settings it opened before', async () => {
    const id = await createSource(first.url);
    const start = await opened(other);
    for (let i = 0; i < 3; i++) assert.equal(await databaseSeenBy(other, id), nameOf(first));
    assert.equal(await opened(other), start + 1);

    await update(id, { connectionUrl: second.url }); // on the first instance
    for (let i = 0; i < 3; i++) assert.equal(await databaseSeenBy(other, id), nameOf(second));
    assert.equal(await opened(other), start + 2);
  });

  test('a deleted source opens nothing more: its id is 404, and a new source is opened once', async () => {
    const id = await createSource(first.url);
    assert.equal(await databaseSeenBy(s.app, id), nameOf(first));
    const before = await opened(s.app);
    assert.equal((await s.request('DELETE', `/api/v1/datasources/${id}`, { as: admin })).status, 204);
    const gone = await s.request('POST', `/api/v1/datasources/${id}/query`, {
      as: editor,
      body: { query: 'SELECT 1' },
    });
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { error: { code: 'NOT_FOUND', message: 'data source not found' } });
    const next = await createSource(second.url);
    for (let i = 0; i < 3; i++) assert.equal(await databaseSeenBy(s.app, next), nameOf(second));
    assert.equal(await opened(s.app), before + 1);
  });
});
