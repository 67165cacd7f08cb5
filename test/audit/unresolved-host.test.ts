import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';
import { openEgressProxy } from '../../src/audit/safety/egress-proxy.ts';
import { REFUSED_HEADER } from '../../src/audit/safety/egress-scope.ts';
import { auditableStart } from '../../src/audit/engine/start-url.ts';
import { AuditFailedError, assertSomePageAudited } from '../../src/audit/engine/audit-errors.ts';
import type { AuditedPage } from '../../src/audit/result/assemble.ts';
import { auditRequest } from '../../src/audit/request/audit-request.ts';
import { HttpError } from '../../src/kit/errors.ts';

/**
 * An audit meeting a host whose resolver does not answer (the address policy's lookup time limit): the page fails
 * naming the host and the limit, and a job that audited nothing because of it is tried again, as for a site that is
 * down, while a refused address is not. The lookup that never settles stands in for the system resolver's server.
 */

const silentDns = () => createAddressPolicy([], { lookup: () => new Promise(() => {}), lookupTimeoutMs: 200 });
const LIMIT = { timeout: 5_000 };
const REASON = 'the host site.example did not resolve within 0.2 s';

test("the egress proxy answers the browser's request for such a host at the limit, naming it", LIMIT, async (t) => {
  const proxy = await openEgressProxy(silentDns());
  t.after(() => proxy.close());
  const { port } = new URL(proxy.server);

  const answer = await new Promise<IncomingMessage>((resolve, reject) =>
    request({ host: '127.0.0.1', port, path: 'http://site.example/page', headers: { host: 'site.example' } }, resolve)
      .on('error', reject)
      .end(),
  );
  answer.resume();
  assert.equal(answer.statusCode, 403);
  assert.equal(decodeURIComponent(String(answer.headers[REFUSED_HEADER])), REASON);

  // HTTPS and WebSockets go through CONNECT: the tunnel is refused as promptly.
  const tunnel = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write('CONNECT site.example:443 HTTP/1.1\r\nHost: site.example:443\r\n\r\n'),
    );
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(tunnel, /^HTTP\/1\.1 403 /);
  assert.deepEqual(
    proxy.refusals.map((r) => r.reason),
    [REASON, REASON],
  );
});

test('a start URL whose host does not resolve in time fails the attempt, to be tried again', LIMIT, async () => {
  await assert.rejects(auditableStart('http://site.example/', silentDns()), (err: unknown) => {
    assert.ok(err instanceof AuditFailedError);
    assert.equal(err.message, REASON);
    assert.equal(err.retryable, true);
    return true;
  });
  // A refused address stays final: trying again cannot help.
  await assert.rejects(auditableStart('http://10.0.0.1/', silentDns()), { retryable: false });
  // The same reason on the only page visited (the proxy's answer) is retried as well.
  const page: AuditedPage = {
    requestedUrl: 'http://site.example/',
    depth: 0,
    url: 'http://site.example/',
    httpStatus: null,
    title: null,
    durationMs: 200,
    axe: null,
    error: REASON,
    mergedUrls: [],
  };
  assert.throws(() => assertSomePageAudited([page]), { message: REASON, retryable: true });
});

test('asking for an audit of such a host is answered 400 at the limit, naming it', LIMIT, async () => {
  // What POST /audit, POST /api/v1/audits and the scheduler ask before accepting a URL.
  await assert.rejects(
    auditRequest(
      'http://site.example/',
      {},
      {
        limits: { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 2, maxPages: 5 },
        policy: silentDns(),
        missingSecrets: async () => [],
      },
    ),
    (err: unknown) => {
      assert.ok(err instanceof HttpError);
      assert.equal(err.statusCode, 400);
      assert.equal(err.code, 'VALIDATION_ERROR');
      assert.equal(err.message, `url cannot be audited: ${REASON}`);
      return true;
    },
  );
});
