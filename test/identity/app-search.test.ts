import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';

/** `GET /api/v1/applications?q=`: the console's search of applications, by name or client_id, as plain text. */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
let server: Server;
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

before(async () => {
  server = await startServer('idappsearch', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  for (const [name, clientId] of [
    ['Web Shop', 'shop-web'],
    ['Shop: 50%_off', 'promo'],
    ['Billing', 'billing-SHOP'],
    ['Reports', 'reports'],
  ])
    await server.registerApp({ name: name!, clientId, appType: 'machine' });
});
after(async () => server?.close());

const names = (body: { items: { name: string }[] }) => body.items.map((a) => a.name).sort();

test('q matches the name or the client_id, in any case', async () => {
  const r = await api('/applications?q=shop');
  assert.equal(r.status, 200);
  assert.deepEqual(names(r.body), ['Billing', 'Shop: 50%_off', 'Web Shop']);
  assert.equal(r.body.next, null);
});

test("q's % and _ are characters, not wildcards", async () => {
  assert.deepEqual(names((await api('/applications?q=%25')).body), ['Shop: 50%_off']);
  assert.deepEqual(names((await api('/applications?q=_')).body), ['Shop: 50%_off']);
  assert.deepEqual(names((await api(`/applications?q=${encodeURIComponent('\\')}`)).body), []);
});

test('pages of a search follow its cursor, and an empty q is a 400', async () => {
  const first = await api('/applications?q=shop&limit=2');
  assert.equal(first.body.items.length, 2);
  const second = await api(`/applications?q=shop&limit=2&cursor=${first.body.next}`);
  assert.equal(second.body.items.length, 1);
  assert.equal(second.body.next, null);
  assert.deepEqual([...names(first.body), ...names(second.body)].sort(), ['Billing', 'Shop: 50%_off', 'Web Shop']);
  const empty = await api('/applications?q=');
  assert.equal(empty.status, 400);
  assert.equal(empty.body.error.code, 'VALIDATION_ERROR');
});
