import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';
import { openEgressProxy } from '../../src/audit/safety/egress-proxy.ts';
import { REFUSED_HEADER, refusedAt } from '../../src/audit/safety/egress-scope.ts';

/**
 * A CONNECT tunnel of the audit's egress proxy carries what its client sends: https and WebSockets from the browser,
 * plain http from Playwright's own fetch (a session's headers). The CONNECT names only `host:port`, so a refused
 * tunnel is recorded as that, never as an https URL it may not have been.
 */

/** Sends `CONNECT authority` to the proxy, then `then` once the tunnel is open; answers everything read back. */
function throughTunnel(proxyPort: number, authority: string, then = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, '127.0.0.1', () =>
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      if (then && text.startsWith('HTTP/1.1 200 ') && text.endsWith('\r\n\r\n')) {
        socket.write(then);
        then = '';
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

test('a tunnel carries plain http; a refused one is named host:port, with the marker and reason as before', async (t) => {
  const site = createServer((_req, res) => res.end('plain http through a tunnel'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const proxy = await openEgressProxy(createAddressPolicy(['127.0.0.1']));
  t.after(async () => {
    await proxy.close();
    await new Promise((resolve) => site.close(resolve));
  });
  const proxyPort = Number(new URL(proxy.server).port);
  const sitePort = (site.address() as AddressInfo).port;

  const carried = await throughTunnel(
    proxyPort,
    `127.0.0.1:${sitePort}`,
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${sitePort}\r\nConnection: close\r\n\r\n`,
  );
  assert.match(carried, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  assert.match(carried, /plain http through a tunnel$/);

  const refused = await throughTunnel(proxyPort, `127.0.0.2:${sitePort}`);
  const [head, body] = refused.split('\r\n\r\n') as [string, string];
  assert.match(head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.equal(body, 'refused: 127.0.0.2 is a loopback address');
  assert.ok(head.includes(`\r\n${REFUSED_HEADER}: ${encodeURIComponent(body)}\r\n`), head);
  assert.deepEqual(
    proxy.refusals.map((r) => r.target),
    [`127.0.0.2:${sitePort}`],
  );
});

test("a tunnel's refusal is matched to the page at its host and port, whatever the page's scheme", () => {
  const tunnel = { target: '127.0.0.2:8080', reason: 'refused' };
  assert.equal(refusedAt(tunnel, 'http://127.0.0.2:8080/login'), true);
  assert.equal(refusedAt(tunnel, 'https://127.0.0.2:8080/login'), true);
  assert.equal(refusedAt(tunnel, 'http://127.0.0.2:8081/login'), false);
  // A scheme's own port, which a page URL leaves out.
  assert.equal(refusedAt({ target: 'site.example:443', reason: 'refused' }, 'https://site.example/login'), true);
  assert.equal(refusedAt({ target: 'site.example:80', reason: 'refused' }, 'http://site.example/login'), true);
  assert.equal(refusedAt({ target: 'site.example:443', reason: 'refused' }, 'http://site.example/login'), false);
  assert.equal(refusedAt({ target: '[::1]:8080', reason: 'refused' }, 'http://[::1]:8080/'), true);
  // A forwarded request's refusal names its URL.
  const forwarded = { target: 'http://127.0.0.2:8080/login?x=1', reason: 'refused' };
  assert.equal(refusedAt(forwarded, 'http://127.0.0.2:8080/elsewhere'), true);
  assert.equal(refusedAt(forwarded, 'http://127.0.0.3:8080/login'), false);
});
