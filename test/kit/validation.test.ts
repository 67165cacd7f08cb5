import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createApp, type App } from '../../src/kit/app.ts';

// One route that takes every part of a request typed: what is coerced and what is refused is
// decided by the part (query, path parameters and headers are text; a JSON body carries its types).
async function build(): Promise<App> {
  const app = await createApp({ name: 'example', version: '1.0.0', logLevel: 'silent' });
  app.addSchema(Type.Object({ n: Type.Integer() }, { $id: 'Shared' }));
  app.post(
    '/things/:id',
    {
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1 })),
          tag: Type.Optional(Type.Array(Type.String())),
          full: Type.Optional(Type.Boolean()),
        }),
        headers: Type.Object({ 'x-count': Type.Optional(Type.Integer()) }),
        body: Type.Object({
          limit: Type.Integer(),
          on: Type.Optional(Type.Boolean()),
          tags: Type.Optional(Type.Array(Type.String())),
          name: Type.Optional(Type.String()),
          ref: Type.Optional(Type.Ref('Shared')),
          size: Type.Optional(Type.Integer({ default: 10 })),
        }),
      },
    },
    async (request) => ({
      params: request.params,
      query: request.query,
      count: request.headers['x-count'] ?? null,
      body: request.body,
    }),
  );
  return app;
}

test('query, path parameters and headers are coerced to their schema types', async (t) => {
  const app = await build();
  t.after(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/things/7?limit=5&tag=a&full=true',
    headers: { 'x-count': '3' },
    payload: { limit: 1 },
  });
  assert.equal(res.statusCode, 200, res.body);
  const got = res.json();
  assert.deepEqual(got.params, { id: 7 });
  assert.deepEqual(got.query, { limit: 5, tag: ['a'], full: true }, 'a parameter given once fills an array');
  assert.equal(got.count, 3);
  assert.equal(got.body.size, 10, 'defaults still fill in');

  const twice = await app.inject({ method: 'POST', url: '/things/7?tag=a&tag=b', payload: { limit: 1 } });
  assert.deepEqual(twice.json().query.tag, ['a', 'b']);
});

test('query, path parameters and headers that are not of their type are a 400', async (t) => {
  const app = await build();
  t.after(() => app.close());
  for (const [url, headers, where] of [
    ['/things/seven', {}, 'params'],
    ['/things/0', {}, 'params'],
    ['/things/7?limit=many', {}, 'querystring'],
    ['/things/7?full=perhaps', {}, 'querystring'],
    ['/things/7', { 'x-count': 'three' }, 'headers'],
  ] as const) {
    const res = await app.inject({ method: 'POST', url, headers, payload: { limit: 1 } });
    assert.equal(res.statusCode, 400, url);
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, new RegExp(`^${where}`), url);
  }
});

test('a JSON body is validated with its own types: nothing is coerced', async (t) => {
  const app = await build();
  t.after(() => app.close());
  const ok = await app.inject({
    method: 'POST',
    url: '/things/1',
    payload: { limit: 5, on: false, tags: ['x'], name: 'n', ref: { n: 2 } },
  });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().body, { limit: 5, on: false, tags: ['x'], name: 'n', ref: { n: 2 }, size: 10 });

  for (const payload of [
    { limit: '5' }, // a string for an integer
    { limit: 5, on: 'true' }, // a string for a boolean
    { limit: 5, on: 1 }, // a number for a boolean
    { limit: 5, tags: 'x' }, // a scalar for an array
    { limit: 5, name: 12 }, // a number for a string
    { limit: 5, name: ['n'] }, // an array of one for a scalar
    { limit: null }, // null for an integer
    { limit: true },
    { limit: 5, ref: { n: '2' } }, // inside a shared schema too
  ]) {
    const res = await app.inject({ method: 'POST', url: '/things/1', payload });
    assert.equal(res.statusCode, 400, JSON.stringify(payload));
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, /^body/, JSON.stringify(payload));
  }
});
