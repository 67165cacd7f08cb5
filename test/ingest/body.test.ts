import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { readBody } from '../../src/ingest/events/body.ts';
import { HttpError } from '../../src/kit/errors.ts';

const LIMIT = 10 * 1024 * 1024;

/** `megabytes` MB of zeros as consecutive gzip members (gunzip reads them as one stream), built without inflating anything big. */
function gzipBomb(megabytes: number): Buffer {
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: megabytes / 16 }, () => member));
}

/** Feeds `data` in small chunks and records how much of it was pulled. */
function meteredSource(data: Buffer, chunk = 4096): { stream: Readable; pulled: () => number } {
  let offset = 0;
  const stream = new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
  return { stream, pulled: () => Math.min(offset, data.length) };
}

test('a gzip bomb is refused after inflating little more than the limit, without reading all of it', async () => {
  const bomb = gzipBomb(1024);
  assert.ok(bomb.length > 500_000 && bomb.length < 2_000_000, `bomb is ${bomb.length} bytes`);
  const { stream, pulled } = meteredSource(bomb);
  await assert.rejects(readBody(stream, { 'content-encoding': 'gzip' }, LIMIT), (err: unknown) => {
    assert.ok(err instanceof HttpError);
    assert.equal(err.statusCode, 400);
    assert.match(err.message, /decompressed request body exceeds 10 MB/);
    return true;
  });
  // Inflating the whole 1 GB would need all of the ~1 MB input; stopping at the limit leaves most of it unread
  // (what was pulled is 10 MB worth of input plus stream buffers, a bound that does not grow with the bomb).
  assert.ok(pulled() < bomb.length / 2, `pulled ${pulled()} of ${bomb.length} compressed bytes`);
});

test('a body within the limit is returned whole, compressed or not', async () => {
  const text = JSON.stringify({ events: [{ a: 'é'.repeat(1000) }] });
  const plain = await readBody(Readable.from([Buffer.from(text)]), {}, LIMIT);
  assert.deepEqual([plain.text, plain.encoding, plain.bytes], [text, 'identity', Buffer.byteLength(text)]);
  const zipped = await readBody(Readable.from([gzipSync(text)]), { 'content-encoding': 'GZIP' }, LIMIT);
  assert.deepEqual([zipped.text, zipped.encoding], [text, 'gzip']);
});

test('the limit applies on the wire: a declared or counted size over it is refused', async () => {
  await assert.rejects(
    readBody(Readable.from([Buffer.from('{}')]), { 'content-length': String(LIMIT + 1) }, LIMIT),
    /request body exceeds 10 MB/,
  );
  await assert.rejects(
    readBody(Readable.from([Buffer.alloc(6 * 1024 * 1024), Buffer.alloc(5 * 1024 * 1024)]), {}, LIMIT),
    /request body exceeds 10 MB/,
  );
  // A gzip body whose compressed size alone is over the limit.
  const random = Buffer.from(Array.from({ length: 11 * 1024 * 1024 }, (_, i) => (i * 2654435761) >>> 24));
  await assert.rejects(
    readBody(Readable.from([gzipSync(random, { level: 0 })]), { 'content-encoding': 'gzip' }, LIMIT),
    /exceeds 10 MB/,
  );
});

test('truncated gzip is a 400, not a hang', async () => {
  const whole = gzipSync(JSON.stringify({ events: [] }));
  await assert.rejects(
    readBody(Readable.from([whole.subarray(0, whole.length - 6)]), { 'content-encoding': 'gzip' }, LIMIT),
    (err: unknown) => err instanceof HttpError && err.statusCode === 400,
  );
});

test('text is decoded as it arrives: a character split between two chunks survives, invalid UTF-8 anywhere is a 400', async () => {
  const text = JSON.stringify({ events: [{ a: 'café ☕ 𝄞'.repeat(3) }] });
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const read = await readBody(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]), {}, LIMIT);
    assert.equal(read.text, text, `cut at ${cut}`);
  }
  const broken = Buffer.concat([bytes.subarray(0, 10), Buffer.from([0xc3]), bytes.subarray(10)]);
  await assert.rejects(
    readBody(Readable.from([broken.subarray(0, 11), broken.subarray(11)]), {}, LIMIT),
    /not valid UTF-8/,
  );
  // A character cut off by the end of the body.
  await assert.rejects(
    readBody(Readable.from([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x98])]), {}, LIMIT),
    /not valid UTF-8/,
  );
});

test('the bytes of a body are kept beside its text only up to keepBytesUpTo, decompressed when it was gzipped', async () => {
  const text = JSON.stringify({ events: [{ title: 'café' }] });
  const small = await readBody(meteredSource(gzipSync(text), 7).stream, { 'content-encoding': 'gzip' }, LIMIT, {
    keepBytesUpTo: 1024,
  });
  assert.equal(small.text, text);
  assert.deepEqual(small.raw, Buffer.from(text));
  const big = await readBody(meteredSource(Buffer.from(text.padEnd(2000))).stream, {}, LIMIT, { keepBytesUpTo: 1024 });
  assert.equal(big.raw, undefined);
  assert.equal((await readBody(meteredSource(Buffer.from(text)).stream, {}, LIMIT)).raw, undefined);
});
