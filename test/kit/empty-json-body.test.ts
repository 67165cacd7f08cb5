import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createApp } from '../../src/kit/app.ts';

// Over a real socket: clients such as axios instances and generated SDKs send `Content-Type: application/json`
// on every request, and what they send for "no body" is `Content-Length: 0`.
async function serve() {
  const app = await createApp({ name: 'example', version: '1.0.0', logLevel: 'silent' });
  const deleted: string[] = [];
  app.delete('/things/:id', { schema: { params: Type.Object({ id: Type.String() }) } }, async (request, reply) => {
    deleted.push(request.params.id);
    return reply.code(204).send();
  });
  app.post('/things', { schema: { body: Type.Object({ name: Type.String() }) } }, async (request, reply) =>
    reply.code(201).send({ name: request.body.name }),
  );
  app.post('/things/:id/touch', async (request) => ({ body: request.body ?? null }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, deleted };
}

const json = { 'content-type': 'application/json' };

test('a DELETE with a JSON content type and no body reaches its route', async () => {
  const { app, url, deleted } = await serve();
  try {
    const res = await fetch(`${url}/things/t1`, { method: 'DELETE', headers: json });
    assert.equal(res.status, 204, await res.text());
    const charset = await fetch(`${url}/things/t2`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
    });
    assert.equal(charset.status, 204);
    assert.deepEqual(deleted, ['t1', 't2']);

    const touched = await fetch(`${url}/things/t3/touch`, { method: 'POST', headers: json });
    assert.equal(touched.status, 200);
    assert.deepEqual(await touched.json(), { body: null }, 'no body, not an empty string or object');
  } finally {
    await app.close();
  }
});

test('a route that needs a body still says so, in the service shape, as without the header', async () => {
  const { app, url } = await serve();
  try {
    const withHeader = await fetch(`${url}/things`, { method: 'POST', headers: json });
    const without = await fetch(`${url}/things`, { method: 'POST' });
    assert.equal(withHeader.status, 400);
    const body = (await withHeader.json()) as { error: { code: string; message: string } };
    assert.deepEqual(body, await without.json());
    assert.equal(body.error.code, 'VALIDATION_ERROR');
    assert.match(body.error.message, /^body /);
  } finally {
    await app.close();
  }
});

test('a body that is there is still parsed as strictly as before', async () => {
  const { app, url, deleted } = await serve();
  try {
    const blank = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '  ' });
    assert.equal(blank.status, 400, 'whitespace is not JSON');
    assert.match(((await blank.json()) as { error: { message: string } }).error.message, /not valid JSON/);
    const broken = await fetch(`${url}/things/t9`, { method: 'DELETE', headers: json, body: '{' });
    assert.equal(broken.status, 400);
    assert.deepEqual(deleted, [], 'a broken body never reaches the route');
    const poisoned = await fetch(`${url}/things`, {
      method: 'POST',
      headers: json,
      body: '{"name":"a","__proto__":{"admin":true}}',
    });
    assert.equal(poisoned.status, 400, 'prototype poisoning is still refused');
    const fine = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '{"name":"a"}' });
    assert.equal(fine.status, 201);
    assert.deepEqual(await fine.json(), { name: 'a' });
  } finally {
    await app.close();
  }
});
