import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { METHODS, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/** What reaches a client over a real socket: early answers, resets and timeouts do not show through inject(). */

let h: IngestHarness;
let port: number;
let key: string;
let projectId: string;

before(async () => {
  h = await startIngest({ INGEST_BODY_TIMEOUT_SECONDS: '1' }, 'httpedges');
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as { port: number }).port;
  ({ key, projectId } = await h.project());
});

after(async () => {
  await h.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(method: string, headers: Record<string, string>, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // node:http sends the body of a DELETE or OPTIONS without framing unless told its length.
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path: '/v1/events', headers: framed, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('every method but POST is 405 with Allow: POST, whatever the body, its content type or the key', async () => {
  const bodies: [Record<string, string>, Buffer | string | undefined][] = [
    [{}, undefined],
    [{ 'content-type': 'application/xml' }, '<?xml version="1.0"?><propfind xmlns="DAV:"><allprop/></propfind>'],
    [{ 'content-type': 'application/json' }, JSON.stringify({ events: [makeEvent(projectId)] })],
    [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(JSON.stringify({ events: [] }))],
    [{ 'content-type': 'text/plain' }, 'not json at all'],
    [{ 'content-type': 'application/json' }, '{"events": ['],
  ];
  const methods = [...METHODS.filter((m) => m !== 'POST' && m !== 'CONNECT')];
  assert.ok(
    methods.includes('PROPFIND') &&
      methods.includes('MKCOL') &&
      methods.includes('QUERY') &&
      methods.includes('OPTIONS'),
  );
  for (const method of methods) {
    for (const [headers, body] of bodies) {
      for (const apiKey of [key, 'not-a-key']) {
        const res = await send(method, { ...headers, 'x-svc-api-key': apiKey }, body);
        const what = `${method} ${JSON.stringify(headers)} ${apiKey === key ? 'valid key' : 'bad key'}`;
        assert.equal(res.status, 405, `${what}: ${res.body}`);
        assert.equal(res.headers.allow, 'POST', what);
        if (method !== 'HEAD') assert.equal(JSON.parse(res.body).error.code, 'METHOD_NOT_ALLOWED', what);
      }
    }
  }
});

/** Sends `head` and `body` on a raw socket while reading whatever comes back; resolves with the first answer. */
function rawExchange(
  socket: Socket,
  head: string,
  body: Buffer,
): Promise<Answer & { reset: boolean; rest: () => string }> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let reset = false;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') reset = true;
      else reject(err);
    });
    const tryAnswer = () => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.removeListener('data', onData);
      const rest = received.subarray(end + 4 + length);
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: received.subarray(end + 4, end + 4 + length).toString('utf8'),
        reset,
        rest: () => rest.toString('latin1'),
      });
    };
    const onData = (d: Buffer) => {
      received = Buffer.concat([received, d]);
      tryAnswer();
    };
    socket.on('data', onData);
    socket.on('close', () =>
      reject(
        new Error(
          `connection closed${reset ? ' by a reset' : ''} before an answer: ${received.toString('latin1').slice(0, 200)}`,
        ),
      ),
    );
    socket.write(head);
    socket.write(body);
  });
}

async function connected(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

for (const framing of ['content-length', 'chunked'] as const) {
  test(`an 11 MB upload (${framing}) gets its 400 while still sending, without a reset, and the connection stays usable`, async () => {
    const socket = await connected();
    try {
      const payload = Buffer.alloc(11 * 1024 * 1024, 0x20);
      payload.write('{"events":[', 0);
      const body =
        framing === 'chunked'
          ? Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')])
          : payload;
      const head = `POST /v1/events HTTP/1.1\r\nHost: x\r\nX-Svc-API-Key: ${key}\r\nContent-Type: application/json\r\n${framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${payload.length}`}\r\n\r\n`;
      const answer = await rawExchange(socket, head, body);
      assert.equal(answer.status, 400, answer.body);
      assert.equal(JSON.parse(answer.body).error.code, 'VALIDATION_ERROR');
      assert.equal(JSON.parse(answer.body).error.details.reason, 'batch_too_large');
      assert.equal(answer.reset, false);
      // The rest of the upload was read and dropped: the same connection answers the next request.
      const next = await rawExchange(socket, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', Buffer.alloc(0));
      assert.equal(next.status, 200);
      assert.deepEqual(JSON.parse(next.body), { status: 'ok' });
    } finally {
      socket.destroy();
    }
  });
}

test('a body that stops arriving is answered 408 after INGEST_BODY_TIMEOUT_SECONDS and the connection is closed', async () => {
  const socket = await connected();
  try {
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const head = `POST /v1/events HTTP/1.1\r\nHost: x\r\nX-Svc-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const answer = await rawExchange(socket, head, Buffer.from('{"events":[{"event_id":'));
    assert.equal(answer.status, 408, answer.body);
    assert.equal(JSON.parse(answer.body).error.code, 'REQUEST_TIMEOUT');
    assert.match(JSON.parse(answer.body).error.message, /no part of the request body arrived for 1 s/);
    assert.equal(answer.headers.connection, 'close');
    await closed;
  } finally {
    socket.destroy();
  }
});
