import type { IncomingHttpHeaders } from 'node:http';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { HttpError } from '../../kit/errors.ts';

export interface ReadBody {
  text: string;
  /** Bytes after decompression. */
  bytes: number;
  encoding: 'identity' | 'gzip';
}

const MB = 1024 * 1024;

function tooLarge(limit: number, what: string): HttpError {
  // Closing the connection spares reading the rest of an oversize upload.
  return new HttpError(400, 'VALIDATION_ERROR', `${what} exceeds ${limit / MB} MB`, { headers: { connection: 'close' }, details: { reason: 'batch_too_large' } });
}

/**
 * Reads a request body under `limit` bytes, counted on the wire and again after gzip decompression.
 * Decompression streams and stops as soon as the output passes the limit, so a small compressed bomb
 * costs at most `limit` plus one zlib chunk of memory and work.
 */
export async function readBody(source: Readable, headers: IncomingHttpHeaders, limit: number): Promise<ReadBody> {
  const encoding = contentEncoding(headers['content-encoding']);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit, 'the request body');

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
  const countWire = new Transform({
    transform(chunk: Buffer, _enc, callback) {
      wireBytes += chunk.length;
      if (wireBytes > limit) return callback(fail(tooLarge(limit, 'the request body')));
      callback(null, chunk);
    },
  });
  const collect = new Writable({
    write(chunk: Buffer, _enc, callback) {
      bytes += chunk.length;
      if (bytes > limit) return callback(fail(tooLarge(limit, encoding === 'gzip' ? 'the decompressed request body' : 'the request body')));
      chunks.push(chunk);
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
      throw new HttpError(400, 'VALIDATION_ERROR', `the body is not valid gzip: ${(err as Error).message}`, { details: { reason: 'invalid_body' } });
    }
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
      throw new HttpError(400, 'VALIDATION_ERROR', 'the request body ended early', { details: { reason: 'invalid_body' } });
    }
    throw err;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes));
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', 'the body is not valid UTF-8', { details: { reason: 'invalid_body' } });
  }
  return { text, bytes, encoding };
}

function contentEncoding(value: string | undefined): 'identity' | 'gzip' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'identity') return 'identity';
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${value} is not supported: send gzip or no encoding`, { headers: { 'accept-encoding': 'gzip' } });
}
