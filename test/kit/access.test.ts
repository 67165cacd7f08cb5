import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createApp, registeredRoutes } from '../../src/kit/app.ts';
import { PUBLIC, type AccessChecks } from '../../src/kit/access.ts';
import { HttpError } from '../../src/kit/errors.ts';

const checks: AccessChecks = {
  key: (rule: { kind: 'key'; key: string }, request) => {
    if (request.headers['x-key'] === undefined) throw new HttpError(401, 'UNAUTHORIZED', 'a key is required');
    if (request.headers['x-key'] !== rule.key) throw new HttpError(403, 'FORBIDDEN', 'not this key');
  },
};

async function build() {
  const app = await createApp({ name: 'example', version: '1', logLevel: 'silent', access: checks });
  app.post(
    '/items',
    {
      config: { access: { kind: 'key', key: 'k1' } as never },
      schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) },
    },
    async () => ({ ok: true }),
  );
  app.get('/open', { config: { access: PUBLIC } }, async () => ({ open: true }));
  return app;
}

test('a route without a declaration cannot be registered: the app refuses it by default', async () => {
  const app = await createApp({ name: 'example', version: '1', logLevel: 'silent', access: checks });
  assert.throws(() => app.get('/forgotten', async () => 'x'), /route GET \/forgotten declares no access/);
  assert.throws(
    () => app.get('/odd', { config: { access: { kind: 'nobody-checks-this' } } }, async () => 'x'),
    /of kind 'nobody-checks-this'/,
  );
  await app.close();
});

test('the declared check runs before the body is validated: unauthenticated with a bad body is 401, wrong key 403', async () => {
  const app = await build();
  const anonymous = await app.inject({ method: 'POST', url: '/items', payload: { bad: 1 } });
  assert.equal(anonymous.statusCode, 401);
  assert.equal(anonymous.json().error.code, 'UNAUTHORIZED');
  const wrong = await app.inject({ method: 'POST', url: '/items', headers: { 'x-key': 'k2' }, payload: { bad: 1 } });
  assert.equal(wrong.statusCode, 403);
  const invalid = await app.inject({ method: 'POST', url: '/items', headers: { 'x-key': 'k1' }, payload: { bad: 1 } });
  assert.equal(invalid.statusCode, 400, 'the body is validated once the caller passed');
  const ok = await app.inject({ method: 'POST', url: '/items', headers: { 'x-key': 'k1' }, payload: { name: 'a' } });
  assert.equal(ok.statusCode, 200);
  assert.equal((await app.inject({ method: 'GET', url: '/open' })).statusCode, 200);
  assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
  await app.close();
});

test("every registered route, the kit's own included, carries its declaration", async () => {
  const app = await build();
  await app.ready();
  const routes = registeredRoutes(app);
  for (const url of ['/metrics', '/openapi.json', '/open']) {
    assert.equal(routes.find((r) => r.url === url && r.method === 'GET')?.access?.kind, 'public', url);
  }
  assert.equal(routes.find((r) => r.url === '/items')?.access?.kind, 'key');
  assert.ok(routes.every((r) => r.access !== undefined));
  await app.close();
});
