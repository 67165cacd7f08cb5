import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createApp } from '../../src/kit/app.ts';
import { HttpError } from '../../src/kit/errors.ts';
import { redactUrl } from '../../src/kit/logger.ts';

async function build(options: Partial<Parameters<typeof createApp>[0]> = {}) {
  const app = await createApp({ name: 'example', version: '1.2.3', logLevel: 'silent', bodyLimit: 1024, ...options });
  app.post(
    '/items',
    {
      schema: {
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ id: Type.String(), name: Type.String() }) },
      },
    },
    async (request, reply) => reply.code(201).send({ id: 'i1', name: request.body.name }),
  );
  app.get('/conflict', async () => {
    throw new HttpError(409, 'CONFLICT', 'the item exists', { headers: { 'retry-after': '5' } });
  });
  app.get('/boom', async () => {
    throw new Error('connection to 10.0.0.5 failed: password authentication failed for user "admin"');
  });
  return app;
}

test('a valid request passes its schema and the response is serialised by its schema', async () => {
  const app = await build();
  const res = await app.inject({ method: 'POST', url: '/items', payload: { name: 'a', count: 1 } });
  assert.equal(res.statusCode, 201);
  assert.deepEqual(res.json(), { id: 'i1', name: 'a' });
  await app.close();
});

test('every response carries a request id, taken from the caller when given', async () => {
  const app = await build();
  const a = await app.inject({ method: 'GET', url: '/conflict' });
  assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const b = await app.inject({ method: 'GET', url: '/conflict', headers: { 'x-request-id': 'trace-123' } });
  assert.equal(b.headers['x-request-id'], 'trace-123');
  const odd = await app.inject({ method: 'GET', url: '/conflict', headers: { 'x-request-id': 'x'.repeat(500) } });
  assert.match(String(odd.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'an implausible id is replaced');
  const spaced = await app.inject({ method: 'GET', url: '/conflict', headers: { 'x-request-id': 'a b {"level":60}' } });
  assert.match(String(spaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  await app.close();
});

test('schema violations, bad JSON, oversize bodies and unknown routes get the documented shape', async () => {
  const app = await build();
  const invalid = await app.inject({ method: 'POST', url: '/items', payload: { name: '', count: -1 } });
  assert.equal(invalid.statusCode, 400);
  assert.equal(invalid.json().error.code, 'VALIDATION_ERROR');
  assert.match(invalid.json().error.message, /name|count/);

  const badJson = await app.inject({
    method: 'POST',
    url: '/items',
    headers: { 'content-type': 'application/json' },
    payload: '{"name":',
  });
  assert.equal(badJson.statusCode, 400);
  assert.equal(badJson.json().error.code, 'VALIDATION_ERROR');

  const big = await app.inject({ method: 'POST', url: '/items', payload: { name: 'x'.repeat(2000), count: 1 } });
  assert.equal(big.statusCode, 413);
  assert.equal(big.json().error.code, 'PAYLOAD_TOO_LARGE');

  const wrongType = await app.inject({
    method: 'POST',
    url: '/items',
    headers: { 'content-type': 'text/csv' },
    payload: 'a,b',
  });
  assert.equal(wrongType.statusCode, 415);

  const plain = await app.inject({
    method: 'POST',
    url: '/items',
    headers: { 'content-type': 'text/plain' },
    payload: 'hello',
  });
  assert.equal(plain.statusCode, 415);
  assert.equal(plain.json().error.code, 'UNSUPPORTED_MEDIA_TYPE');

  const badUrl = await app.inject({ method: 'GET', url: '/items/%E0%A4%A' });
  assert.equal(badUrl.statusCode, 400);
  assert.equal(badUrl.json().error.code, 'VALIDATION_ERROR');

  const missing = await app.inject({ method: 'GET', url: '/nowhere?token=abc' });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(missing.json(), { error: { code: 'NOT_FOUND', message: 'no route for GET /nowhere' } });
  await app.close();
});

test('HttpError keeps its status, code and headers', async () => {
  const app = await build();
  const res = await app.inject({ method: 'GET', url: '/conflict' });
  assert.equal(res.statusCode, 409);
  assert.equal(res.headers['retry-after'], '5');
  assert.deepEqual(res.json(), { error: { code: 'CONFLICT', message: 'the item exists' } });
  await app.close();
});

test('an unexpected error is a 500 that leaks nothing', async () => {
  const app = await build();
  const res = await app.inject({ method: 'GET', url: '/boom' });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { error: { code: 'INTERNAL_ERROR', message: 'internal server error' } });
  assert.ok(!res.body.includes('password') && !res.body.includes('10.0.0.5'));
  await app.close();
});

test('a service can shape and reclassify errors to its own contract', async () => {
  const app = await build({
    errorBody: (e) => ({ error: e.code, error_description: e.message }),
    classify: (e) => (e.statusCode === 413 ? { ...e, statusCode: 400, code: 'VALIDATION_ERROR' } : e),
  });
  const res = await app.inject({ method: 'GET', url: '/conflict' });
  assert.deepEqual(res.json(), { error: 'CONFLICT', error_description: 'the item exists' });
  const big = await app.inject({ method: 'POST', url: '/items', payload: { name: 'x'.repeat(2000), count: 1 } });
  assert.equal(big.statusCode, 400);
  assert.equal(big.json().error, 'VALIDATION_ERROR');
  await app.close();
});

test('/openapi.json describes the routes from their schemas', async () => {
  const app = await build();
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.title, 'example');
  assert.equal(doc.info.version, '1.2.3');
  const post = doc.paths['/items'].post;
  assert.deepEqual(post.requestBody.content['application/json'].schema.required, ['name', 'count']);
  assert.ok(post.responses['201']);
  assert.equal(doc.paths['/openapi.json'].get.operationId, 'getOpenApiDocument', 'the document describes itself too');
  assert.deepEqual(doc.servers, [{ url: '/', description: 'the origin this document is served from' }]);
  assert.ok(doc.components.schemas.Error, 'the shared error body is a named component');
  await app.close();
});

test('closing finishes requests in flight and refuses new ones', async () => {
  const app = await createApp({ name: 'slow', version: '1', logLevel: 'silent' });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const handling = new Promise<void>((r) => (entered = r));
  app.get('/slow', async () => {
    entered();
    await gate;
    return { done: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const inflight = fetch(`http://127.0.0.1:${port}/slow`);
  // Closed only once the request is being handled (a fixed pause lost the race on a loaded machine).
  await handling;
  const closing = app.close();
  await new Promise((r) => setTimeout(r, 50));
  // No new connection while closing: the port no longer listens.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/slow`), (err: unknown) => {
    assert.ok(err instanceof TypeError, String(err));
    assert.equal(err.message, 'fetch failed');
    assert.equal((err.cause as { code?: string } | undefined)?.code, 'ECONNREFUSED');
    return true;
  });
  release();
  const res = await inflight;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { done: true });
  await closing;
});

test('credentials in query strings are redacted before logging', () => {
  assert.equal(redactUrl('/cb?code=abc&state=xyz&page=2'), '/cb?code=%5Bredacted%5D&state=%5Bredacted%5D&page=2');
  assert.equal(redactUrl('/plain'), '/plain');
  assert.equal(
    redactUrl('/signin?return_to=%2Finvites%2Faccept%3Ftoken%3Dinv_secret'),
    '/signin?return_to=%5Bredacted%5D',
    'a return address may carry an invitation token',
  );
});
