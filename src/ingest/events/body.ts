import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { HttpError } from '../../kit/errors.ts';
import { invalidBody } from '../errors.ts';

export interface ReadBody {
  /** The body decoded (a body whose bytes are kept is decoded when this is first read). */
  readonly text: string;
  /** The decoded bytes of `text`, kept when there are at most `keepBytesUpTo` of them (ReadOptions). */
  raw?: Buffer | undefined;
  /** Bytes after decompression. */
  bytes: number;
  encoding: 'identity' | 'gzip';
}

const MB = 1024 * 1024;

/** The reason of the answer to a body over the limit (the contract's 400, not HTTP's 413). */
export const TOO_LARGE = 'batch_too_large';

function tooLarge(limit: number, what: string): HttpError {
  return invalidBody(TOO_LARGE, `${what} exceeds ${limit / MB} MB`);
}

export interface ReadOptions {
  /** Longest pause between two pieces of the body before it is answered 408 (none when absent). */
  idleTimeoutMs?: number | undefined;
  /** Largest body whose bytes are returned beside its text (none by default). */
  keepBytesUpTo?: number | undefined;
}

/**
 * Reads a request body under `limit` bytes, counted on the wire and again after gzip decompression.
 * Decompression streams and stops as soon as the output passes the limit, so a small compressed bomb
 * costs at most `limit` plus one zlib chunk of memory and work. A body that stops arriving for
 * `idleTimeoutMs` is a 408 (with `Connection: close`: the rest of it is not waited for).
 */
export async function readBody(
  source: Readable,
  headers: IncomingHttpHeaders,
  limit: number,
  options: ReadOptions = {},
): Promise<ReadBody> {
  const encoding = contentEncoding(headers['content-encoding']);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit, 'the request body');

  // Kept as Buffers (outside V8's heap, freed as soon as they are dropped) and decoded once: decoding piece by piece
  // as the body arrives was measured to raise the peak RSS under hostile load (heap strings outlive their use).
  const chunks: Buffer[] = [];
  let wireBytes = 0;
  let bytes = 0;
  let failure: HttpError | undefined;
  const fail = (error: HttpError) => {
    failure = error;
    // Stop pulling from the client at once rather than when the pipeline has finished tearing down.
    source.unpipe(countWire);
    return error;
  };
  let arrivals = 0;
  let settled = false;
  const idle =
    options.idleTimeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          // After the event loop was blocked (a long parse, a GC pause) timers run before the socket's waiting data is
          // read: look again once that data has had its turn, so a busy server does not blame a client that kept sending.
          const seen = arrivals;
          setImmediate(() => {
            if (settled || failure) return;
            if (arrivals !== seen) return void idle!.refresh();
            const seconds = options.idleTimeoutMs! / 1000;
            countWire.destroy(
              fail(
                new HttpError(
                  408,
                  'REQUEST_TIMEOUT',
                  `no part of the request body arrived for ${seconds} s; send the whole body without pausing`,
                  { headers: { connection: 'close' } },
                ),
              ),
            );
          });
        }, options.idleTimeoutMs);
  const countWire = new Transform({
    transform(chunk: Buffer, _enc, callback) {
      arrivals++;
      idle?.refresh();
      wireBytes += chunk.length;
      if (wireBytes > limit) return callback(fail(tooLarge(limit, 'the request body')));
      callback(null, chunk);
    },
  });
  // A body whose declared length is kept whole is copied into one buffer of that length as it arrives, rather than
  // joined at the end: one allocation of its size less per request (and fewer major GCs under load).
  const keep = options.keepBytesUpTo ?? -1;
  let into =
    encoding === 'identity' && Number.isInteger(declared) && declared > 0 && declared <= keep
      ? Buffer.allocUnsafe(declared)
      : undefined;
  const collect = new Writable({
    write(chunk: Buffer, _enc, callback) {
      if (into && bytes + chunk.length <= into.length) chunk.copy(into, bytes);
      else if (into) {
        // More than declared (Node's parser does not allow it, but a stream might): back to joining pieces.
        chunks.push(into.subarray(0, bytes));
        into = undefined;
      }
      bytes += chunk.length;
      if (bytes > limit)
        return callback(
          fail(tooLarge(limit, encoding === 'gzip' ? 'the decompressed request body' : 'the request body')),
        );
      if (!into) chunks.push(chunk);
      callback();
    },
  });
  // The request itself is piped, not handed to pipeline(): a failure must not destroy the socket the answer goes out on.
  source.pipe(countWire);
  source.once('error', (err) => countWire.destroy(err));
  try {
    await (encoding === 'gzip' ? pipeline(countWire, createGunzip(), collect) : pipeline(countWire, collect));
  } catch (err) {
    source.unpipe(countWire);
    if (failure) throw failure;
    if (encoding === 'gzip' && (err as NodeJS.ErrnoException).code?.startsWith('Z_')) {
      throw invalidBody('invalid_body', `the body is not valid gzip: ${(err as Error).message}`);
    }
    if (
      (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' ||
      (err as NodeJS.ErrnoException).code === 'ECONNRESET'
    ) {
      throw invalidBody('invalid_body', 'the request body ended early');
    }
    throw err;
  } finally {
    settled = true;
    clearTimeout(idle);
  }
  const whole = into ? into.subarray(0, bytes) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  if (bytes <= keep) {
    // Kept bytes are checked now and decoded only if asked for: a batch read from its bytes (fast-batch.ts) never is.
    if (!isUtf8(whole)) throw notUtf8();
    let decoded: string | undefined;
    return {
      get text() {
        decoded ??= new TextDecoder('utf-8', { fatal: true }).decode(whole);
        return decoded;
      },
      raw: whole,
      bytes,
      encoding,
    };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(whole);
  } catch {
    throw notUtf8();
  }
  return { text, raw: undefined, bytes, encoding };
}

const notUtf8 = () => invalidBody('invalid_body', 'the body is not valid UTF-8');

function contentEncoding(value: string | undefined): 'identity' | 'gzip' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'identity') return 'identity';
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  throw new HttpError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `Content-Encoding ${value} is not supported: send gzip or no encoding`,
    { headers: { 'accept-encoding': 'gzip' } },
  );
}

export interface DiscardLimits {
  /** Bytes read and thrown away at most. */
  maxBytes: number;
  /** Longest pause between two pieces of the upload. */
  idleTimeoutMs: number;
  /** Longest time spent on the rest of the upload in all. */
  maxMs: number;
}

/**
 * After an early answer (a body over the limit), reads the rest of the upload and throws it away, so the client
 * is still sending into an open connection when the answer reaches it. Closing instead would make the kernel
 * answer the bytes still arriving with a reset, which discards the answer before most clients read it; they
 * then retry forever. When the upload ends within the limits on a kept-alive connection, the connection stays open
 * for the client's next request; past them it is cut.
 *
 * When the answer is the connection's last (the client sent `Connection: close`), Node ends the connection as soon
 * as the answer is out, with `socket.destroySoon()`, which would reset it just the same. Until the upload has ended
 * that is a lingering close, as nginx and Apache do it: our side is shut at once (the client sees the answer end),
 * and the socket is destroyed only once the client has stopped sending.
 */
export function discardRest(request: IncomingMessage, limits: DiscardLimits): void {
  const socket = request.socket;
  if (request.complete || socket.destroyed) {
    // Everything has arrived already (what is left only sits in the stream's buffer), or the client is gone.
    request.resume();
    return;
  }
  let closeWanted = false;
  socket.destroySoon = () => {
    closeWanted = true;
    socket.end();
  };
  let discarded = 0;
  const finish = (cut: boolean) => {
    clearTimeout(idle);
    clearTimeout(deadline);
    request.removeListener('data', onData);
    request.removeListener('end', ended);
    request.removeListener('close', ended);
    socket.removeListener('close', ended);
    // Back to net.Socket's own, for the answers to come on a kept-alive connection.
    Reflect.deleteProperty(socket, 'destroySoon');
    if (cut) socket.destroy();
    else if (closeWanted) socket.destroySoon();
  };
  const cut = () => finish(true);
  const ended = () => finish(false);
  const idle = setTimeout(cut, limits.idleTimeoutMs).unref();
  const deadline = setTimeout(cut, limits.maxMs).unref();
  const onData = (chunk: Buffer) => {
    idle.refresh();
    discarded += chunk.length;
    if (discarded > limits.maxBytes) cut();
  };
  request.on('data', onData);
  request.once('end', ended);
  request.once('close', ended);
  // A client that stops sending and closes leaves the request unfinished: the socket's close says it is over.
  socket.once('close', ended);
  request.resume();
}
