import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createAddressPolicy, RefusedDestinationError } from '../../src/kit/outbound/address-policy.ts';
import { safeFetchText } from '../../src/audit/safety/safe-fetch.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from './support.ts';

/**
 * The service fetches what callers name, so it must not reach the network it runs in. The operator allows
 * exactly 127.0.0.1 here (the test site); every other internal address stays refused, including 127.0.0.2,
 * where a second server listens to prove that nothing reached it.
 */

let h: AuditHarness;
let site: TestSite;
let internal: TestSite;

before(async () => {
  internal = await serveSite(
    {
      '/': page('Internal', '<p>secret</p>'),
      '/secret': {
        body: '{"secret":true}',
        headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
      },
    },
    '127.0.0.2',
  );
  h = await startAudit({ AUDIT_ALLOW_HOSTS: '127.0.0.1' }, 'auditsafety');
  site = await serveSite({
    '/to-internal': { status: 302, body: '', headers: { location: `${internal.origin}/` } },
    '/to-metadata': { status: 302, body: '', headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
    '/fetches-internal': page(
      'Fetcher',
      `<p id="out">waiting</p><img src="${internal.origin}/pixel.png" alt="x"><iframe title="inner" src="${internal.origin}/"></iframe>
      <script>fetch('${internal.origin}/secret').then((r) => r.text(), (e) => 'blocked').then((t) => { document.getElementById('out').textContent = t; });</script>`,
    ),
    '/plain': page('Plain', '<p>ok</p>'),
  });
});

after(async () => {
  await site?.close();
  await internal?.close();
  await h?.close();
});

test('the address policy refuses internal addresses after resolving names, and allows what the operator names', async () => {
  const closed = createAddressPolicy([]);
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '64:ff9b::a01:203',
    '[::1]',
  ]) {
    await assert.rejects(closed.resolve(address), RefusedDestinationError, address);
  }
  await assert.rejects(closed.resolve('localhost'), /refused: localhost resolves to/);
  await assert.rejects(closed.resolve('no-such-host.invalid'), /could not be resolved/);
  assert.equal((await closed.resolve('8.8.8.8')).address, '8.8.8.8');
  assert.equal((await closed.resolve('2606:4700:4700::1111')).address, '2606:4700:4700::1111');

  const open = createAddressPolicy(['127.0.0.1', '10.0.0.0/8', 'intranet.example']);
  assert.equal((await open.resolve('127.0.0.1')).address, '127.0.0.1');
  assert.equal((await open.resolve('10.9.9.9')).address, '10.9.9.9');
  await assert.rejects(open.resolve('127.0.0.2'), /loopback/);
  await assert.rejects(
    open.resolve('11.0.0.1').then(() => Promise.reject(new Error('public'))),
    /public/,
  );
  assert.throws(() => open.checkUrl(new URL('file:///etc/passwd')), /only http and https/);
  assert.throws(() => open.checkUrl(new URL('ftp://example.com/')), /only http and https/);
  assert.throws(
    () => loadAuditConfig({ ...h.env, AUDIT_ALLOW_HOSTS: '10.0.0.0/8,10.0.0.0/33' }),
    /AUDIT_ALLOW_HOSTS is malformed: "10\.0\.0\.0\/33"/,
  );
});

test("the crawler's own reads (robots.txt, sitemaps) check every redirect hop too", async () => {
  const policy = createAddressPolicy(['127.0.0.1']);
  assert.equal(await safeFetchText(`${site.origin}/to-internal`, policy, { timeoutMs: 5000, maxBytes: 1000 }), null);
  assert.equal(
    (await safeFetchText(`${site.origin}/plain`, policy, { timeoutMs: 5000, maxBytes: 100_000 }))?.status,
    200,
  );
  assert.equal(internal.hits.length, 0);
});

test('URLs of internal addresses and other schemes are refused when asked for, with 400 naming why', async () => {
  const cases: Array<[string, RegExp]> = [
    ['http://10.0.0.1/', /10\.0\.0\.1 is a private address/],
    [
      'http://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is a link-local address, where a cloud metadata service answers$/,
    ],
    // The URL parser compresses the mapped form; the message gives the IPv4 address a caller recognises.
    ['http://[::ffff:10.0.0.1]/', /refused: ::ffff:a00:1 \(IPv4 10\.0\.0\.1\) is a private address$/],
    [
      'http://[fd00:ec2::254]/latest/meta-data/',
      /fd00:ec2::254 is a private address, where a cloud metadata service answers$/,
    ],
    ['http://[fe80::1]/', /fe80::1 is a link-local address$/],
    ['http://169.254.10.20/', /169\.254\.10\.20 is a link-local address$/],
    ['http://[64:ff9b::a00:1]/', /64:ff9b::a00:1 is a NAT64 address \(64:ff9b::\/96, an IPv4 address in IPv6 form\)$/],
    [`${internal.origin}/`, /127\.0\.0\.2 is a loopback address/],
    ['http://[::1]/', /loopback/],
    ['http://0.0.0.0:8080/', /0\.0\.0\.0 is an unspecified address/],
    ['file:///etc/passwd', /must use http or https/],
    ['javascript:alert(1)', /must use http or https/],
    ['http://user:pw@127.0.0.1/', /user name or password/],
  ];
  for (const [url, message] of cases) {
    const sync = await h.call('POST', '/audit', { url });
    assert.equal(sync.statusCode, 400, `${url}: ${sync.body}`);
    assert.match(sync.json().error.message, message, url);
    const job = await h.call('POST', '/api/v1/audits', { url });
    assert.equal(job.statusCode, 400, `${url}: ${job.body}`);
    assert.match(job.json().error.message, message, url);
  }
  assert.equal(internal.hits.length, 0);
});

test('a redirect to an internal address is refused at that hop: the page fails, nothing reaches the internal server', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/to-internal` });
  assert.equal(res.statusCode, 400, res.body);
  assert.match(res.json().error.message, /refused: 127\.0\.0\.2 is a loopback address/);
  const metadata = await h.call('POST', '/audit', { url: `${site.origin}/to-metadata` });
  assert.equal(metadata.statusCode, 400, metadata.body);
  assert.match(metadata.json().error.message, /169\.254\.169\.254 is a link-local/);

  const { id } = (await h.call('POST', '/api/v1/audits', { url: `${site.origin}/to-internal` })).json();
  const job = await waitForJob(h, id, ['failed', 'completed']);
  assert.equal(job.status, 'failed');
  assert.equal(job.attempts, 1, 'a refusal is not retried');
  assert.match(job.error, /refused: 127\.0\.0\.2/);
  assert.equal(internal.hits.length, 0);
});

test('requests a page makes to internal addresses (fetch, image, iframe) are refused while the page is audited', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/fetches-internal` });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().pages[0].status, 'audited');
  assert.deepEqual(internal.hits, [], 'the internal server saw no request');
});

/** A bare TCP listener that counts connections: a tunnel (CONNECT) to it shows up whatever is spoken over it. */
async function tcpListener(
  host: string,
): Promise<{ server: Server; port: number; connections: number; connected: Promise<void> }> {
  let connected: () => void = () => {};
  const state = {
    server: createServer(),
    port: 0,
    connections: 0,
    connected: new Promise<void>((resolve) => (connected = resolve)),
  };
  state.server.on('connection', (socket: Socket) => {
    state.connections++;
    connected();
    socket.destroy();
  });
  await new Promise<void>((resolve) => state.server.listen(0, host, resolve));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

test('WebSockets and https requests (tunnelled with CONNECT) to internal addresses are refused too', {
  timeout: 120_000,
}, async () => {
  const inside = await tcpListener('127.0.0.2');
  const allowed = await tcpListener('127.0.0.1');
  const tunnels = await serveSite({
    // The internal attempts come first; the allowed one shows the page's sockets really go out (through the proxy).
    '/': page(
      'Sockets',
      `<script>
      for (const url of ['ws://127.0.0.2:${inside.port}/', 'wss://127.0.0.2:${inside.port}/']) { try { new WebSocket(url); } catch {} }
      fetch('https://127.0.0.2:${inside.port}/').catch(() => {});
      new WebSocket('ws://127.0.0.1:${allowed.port}/');
    </script>`,
    ),
  });
  try {
    const res = await h.call('POST', '/audit', { url: `${tunnels.origin}/` });
    assert.equal(res.statusCode, 200, res.body);
    await allowed.connected;
    assert.equal(inside.connections, 0, 'nothing reached the internal address');
    assert.ok(allowed.connections >= 1);
  } finally {
    await tunnels.close();
    inside.server.close();
    allowed.server.close();
  }
});
