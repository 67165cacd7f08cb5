import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/kit/app.ts';
import { PUBLIC } from '../../src/kit/access.ts';
import { addFrontDoor } from '../../src/kit/front-door.ts';
import { Registry } from '../../src/kit/metrics.ts';

function sample(text: string, series: string): number | undefined {
  const escaped = series.replace(/[{}"=,.*+?^$()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

test('a front door answers its POST before Fastify, as Fastify would count and label it; what it declines, Fastify answers', async () => {
  const registry = new Registry();
  const app = await createApp({ name: 'example', version: '1', logLevel: 'silent', metrics: registry });
  const doorSaw: string[] = [];
  addFrontDoor(app, '/fast', async (req, res, requestId) => {
    doorSaw.push(req.url ?? '');
    if (req.headers['x-decline'] !== undefined) return false;
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId });
    res.end(JSON.stringify({ by: 'door' }));
    return true;
  });
  app.post('/fast', { config: { access: PUBLIC } }, async () => ({ by: 'fastify' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const byDoor = await fetch(`${base}/fast`, { method: 'POST', headers: { 'x-request-id': 'caller-id.1' } });
    assert.deepEqual(await byDoor.json(), { by: 'door' });
    assert.equal(byDoor.headers.get('x-request-id'), 'caller-id.1', "the caller's request id is kept");
    const ownId = await fetch(`${base}/fast`, { method: 'POST', headers: { 'x-request-id': 'no spaces allowed' } });
    await ownId.body?.cancel();
    assert.match(String(ownId.headers.get('x-request-id')), /^[0-9a-f-]{36}$/, 'an id of its own otherwise');

    const declined = await fetch(`${base}/fast`, { method: 'POST', headers: { 'x-decline': '1' } });
    assert.deepEqual(await declined.json(), { by: 'fastify' }, 'declined: Fastify routes it');
    assert.ok(declined.headers.get('x-request-id'));
    const query = await fetch(`${base}/fast?x=1`, { method: 'POST' });
    assert.deepEqual(await query.json(), { by: 'fastify' }, 'another URL (a query string) is never the door’s');
    const injected = await app.inject({ method: 'POST', url: '/fast' });
    assert.deepEqual(injected.json(), { by: 'fastify' }, 'injected requests go to Fastify');
    assert.deepEqual(doorSaw, ['/fast', '/fast', '/fast'], 'the door saw only its own path');

    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.equal(
      sample(metrics, 'http_requests_total{method="POST",route="/fast",status="200"}'),
      5,
      'both paths counted under the route',
    );
    assert.ok(
      (sample(metrics, 'http_request_duration_seconds_count{method="POST",route="/fast",status="200"}') ?? 0) >= 5,
    );
  } finally {
    await app.close();
  }
});

test('a front door is one per path', async () => {
  const app = await createApp({ name: 'example', version: '1', logLevel: 'silent' });
  try {
    addFrontDoor(app, '/fast', async () => false);
    assert.throws(() => addFrontDoor(app, '/fast', async () => false), /already answers POST \/fast/);
  } finally {
    await app.close();
  }
});
