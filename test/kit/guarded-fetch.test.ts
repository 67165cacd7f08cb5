import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAddressPolicy, RefusedDestinationError } from '../../src/kit/outbound/address-policy.ts';
import { guardedFetch } from '../../src/kit/outbound/guarded-fetch.ts';

// The fetch enterprise SSO's OpenID client uses for an issuer an admin named: checked, pinned, no redirects, capped.
let server: Server;
let base: string;
const seen: { method: string; body: string; type: string | undefined }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', body, type: req.headers['content-type'] });
      if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5000));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const options = { timeoutMs: 2000, maxAnswerBytes: 1000 };

test('an internal address is refused unless the operator allowed it; an allowed one is fetched, GET and POST', async () => {
  await assert.rejects(guardedFetch(createAddressPolicy([]), options)(`${base}/x`), RefusedDestinationError);
  assert.equal(seen.length, 0, 'nothing was sent');
  const fetch = guardedFetch(createAddressPolicy(['127.0.0.1']), options);
  const got = await fetch(`${base}/.well-known/openid-configuration`);
  assert.equal(got.status, 200);
  assert.deepEqual(await got.json(), { ok: true });
  const posted = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ code: 'c' }),
  });
  assert.equal(posted.status, 200);
  assert.deepEqual(seen.at(-1), { method: 'POST', body: 'code=c', type: 'application/x-www-form-urlencoded' });
});

test('a redirect is not followed, and an answer over the cap is refused', async () => {
  const fetch = guardedFetch(createAddressPolicy(['127.0.0.1']), options);
  await assert.rejects(fetch(`${base}/redirect`), /answered a redirect, which is not followed/);
  await assert.rejects(fetch(`${base}/big`), /answered more than 1000 bytes/);
  await assert.rejects(fetch('ftp://127.0.0.1/'), RefusedDestinationError);
});
