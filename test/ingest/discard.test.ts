import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { discardRest, type DiscardLimits } from '../../src/ingest/events/body.ts';

/**
 * The rest of an upload answered early is read and thrown away within bounds, so a client that goes on sending
 * cannot hold a connection (and its socket) for long: past the bytes or the time allowed, the connection is cut.
 */
async function withServer(limits: DiscardLimits, run: (port: number, serverSide: Promise<Socket>) => Promise<void>) {
  const server = createServer((request: IncomingMessage, reply) => {
    discardRest(request, limits);
    reply.writeHead(400, { 'content-type': 'text/plain' }).end('too large');
  });
  const serverSide = new Promise<Socket>((resolve) => server.once('connection', resolve));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await run((server.address() as { port: number }).port, serverSide);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function uploading(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
  return socket;
}

const chunk = (size: number) => `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`;

test('past maxBytes of the rest, the connection is cut', async () => {
  await withServer({ maxBytes: 1024 * 1024, idleTimeoutMs: 10_000, maxMs: 10_000 }, async (port, serverSide) => {
    const socket = await uploading(port);
    const server = await serverSide;
    const closed = once(server, 'close');
    let sent = 0;
    while (!server.destroyed && sent < 8 * 1024 * 1024) {
      const ok = socket.write(chunk(64 * 1024));
      sent += 64 * 1024;
      if (!ok) await Promise.race([once(socket, 'drain'), closed]);
    }
    await closed;
    assert.ok(sent < 8 * 1024 * 1024, `cut only after ${sent} bytes`);
    socket.destroy();
  });
});

test('past maxMs in all, a client that keeps sending slowly is cut, however it keeps within the idle timeout', async () => {
  await withServer({ maxBytes: 64 * 1024 * 1024, idleTimeoutMs: 1000, maxMs: 400 }, async (port, serverSide) => {
    const socket = await uploading(port);
    const server = await serverSide;
    const started = Date.now();
    const drip = setInterval(() => socket.write(chunk(100)), 50);
    try {
      await once(server, 'close');
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
    const took = Date.now() - started;
    assert.ok(took >= 350 && took < 900, `cut after ${took} ms`);
  });
});

test('an upload that ends within the bounds leaves a kept-alive connection open for the next request', async () => {
  await withServer({ maxBytes: 1024 * 1024, idleTimeoutMs: 1000, maxMs: 1000 }, async (port, serverSide) => {
    const socket = await uploading(port);
    const server = await serverSide;
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (received += d));
    socket.write(`${chunk(100 * 1024)}0\r\n\r\n`);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    while ((received.match(/HTTP\/1\.1 400/g) ?? []).length < 2) await once(socket, 'data');
    assert.equal(server.destroyed, false);
    socket.destroy();
  });
});
