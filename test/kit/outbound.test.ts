import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';
import { guardedPost, OutboundError } from '../../src/kit/outbound/post.ts';
import {
  isWebhookSecret,
  newWebhookSecret,
  signature,
  verifyWebhook,
  webhookHeaders,
} from '../../src/kit/outbound/standard-webhooks.ts';

test('signatures match the Standard Webhooks test vector', () => {
  // The example in the specification's reference libraries (standard-webhooks, svix).
  const signed = signature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', {
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
  });
  assert.equal(signed, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('a receiver accepts either secret during a rotation and refuses a stale or altered message', () => {
  const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
  assert.ok(isWebhookSecret(oldSecret));
  assert.equal(isWebhookSecret('whsec_c2hvcnQ='), false);
  const now = Date.now();
  const message = { id: 'msg_1', timestamp: Math.floor(now / 1000), body: '{"a":1}' };
  const headers = webhookHeaders([oldSecret, newSecret], message);
  assert.ok(verifyWebhook(oldSecret, headers, message.body, 300, now));
  assert.ok(verifyWebhook(newSecret, headers, message.body, 300, now));
  assert.equal(verifyWebhook(newSecret, headers, '{"a":2}', 300, now), false);
  assert.equal(verifyWebhook(newSecret, headers, message.body, 300, now + 301_000), false);
  assert.equal(verifyWebhook(newWebhookSecret(), headers, message.body, 300, now), false);
});

async function receiver(answer: (req: IncomingMessage, body: string) => [number, Record<string, string>?]) {
  const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const [status, headers] = answer(req, body);
      res.writeHead(status, headers).end('receiver said no');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const options = { timeoutMs: 2_000, userAgent: 'platform-test' };

test('a POST to a loopback address is refused unless the operator allowed it', async (t) => {
  const r = await receiver(() => [204]);
  t.after(r.close);
  const post = { url: r.url, headers: { 'content-type': 'application/json' }, body: '{}' };
  await assert.rejects(guardedPost(post, createAddressPolicy([]), options), (err: unknown) => {
    assert.ok(err instanceof OutboundError);
    assert.ok(err.refused);
    assert.match(err.message, /loopback/);
    return true;
  });
  assert.equal(r.seen.length, 0);
  const answer = await guardedPost(post, createAddressPolicy(['127.0.0.1']), options);
  assert.equal(answer.status, 204);
  assert.equal(r.seen.length, 1);
});

test('metadata addresses, other schemes and malformed URLs are refused before any connection', async () => {
  const policy = createAddressPolicy([]);
  for (const url of ['http://169.254.169.254/latest', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
    await assert.rejects(guardedPost({ url, headers: {}, body: '' }, policy, options), (err: unknown) => {
      assert.ok(err instanceof OutboundError && err.refused, url);
      return true;
    });
  }
});

test('a redirect is not followed, Retry-After is read, and a silent receiver times out', async (t) => {
  const r = await receiver((req) =>
    req.url === '/hook' ? [307, { location: 'http://169.254.169.254/' }] : [429, { 'retry-after': '7' }],
  );
  t.after(r.close);
  const policy = createAddressPolicy(['127.0.0.1']);
  const redirected = await guardedPost({ url: r.url, headers: {}, body: 'x' }, policy, options);
  assert.equal(redirected.status, 307);
  assert.equal(r.seen.length, 1);
  const limited = await guardedPost({ url: r.url.replace('/hook', '/busy'), headers: {}, body: 'x' }, policy, options);
  assert.equal(limited.retryAfterMs, 7_000);

  const silent = createServer(() => {});
  await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
  t.after(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
  await assert.rejects(
    guardedPost({ url, headers: {}, body: '' }, policy, { ...options, timeoutMs: 200 }),
    /no answer within 200 ms/,
  );
});
