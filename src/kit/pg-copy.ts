import type pg from 'pg';

/**
 * `COPY … FROM STDIN` with the whole input in one Buffer, on a `pg` client: what `pg` itself has no call for.
 * Written against `pg`'s documented extension point (an object with `submit` handed to `client.query`, as
 * `pg-copy-streams` does), without a stream: a caller that has its rows in memory needs none, and one message
 * carries them. Resolves with the number of rows copied; rejects with the server's error (the input is then
 * discarded by the server and the transaction is aborted, like a failed INSERT).
 */
export function copyFrom(client: pg.ClientBase, sql: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      if (err) reject(err);
      else resolve(rows);
    };
    const submittable = {
      submit(connection: Connection) {
        connection.query(sql);
      },
      handleCopyInResponse(connection: Connection) {
        // Sent in pieces under PostgreSQL's 1 GB message limit; a group of events is a few MB. Each CopyData header is
        // written to the socket before the piece itself: pg's own sendCopyFromChunk copies the piece into a new
        // message buffer (half again its size), which for MBs a second meant extra major GCs.
        for (let at = 0; at < data.length; at += MAX_MESSAGE) {
          const piece = data.subarray(at, at + MAX_MESSAGE);
          if (typeof connection.stream?.write !== 'function') {
            connection.sendCopyFromChunk(piece);
            continue;
          }
          const header = Buffer.allocUnsafe(5);
          header[0] = COPY_DATA;
          header.writeInt32BE(piece.length + 4, 1);
          connection.stream.write(header);
          connection.stream.write(piece);
        }
        connection.endCopyFrom();
      },
      handleCommandComplete(msg: { text?: string }) {
        rows = Number(/^COPY (\d+)/.exec(msg.text ?? '')?.[1] ?? 0);
      },
      // pg calls this after the command completed, but not after an error (handleError came instead).
      handleReadyForQuery() {
        finish();
      },
      handleError(err: unknown) {
        finish(err);
      },
      // A COPY that is not `FROM STDIN` would answer with rows or a CopyOut: not what this is for.
      handleRowDescription() {
        finish(new Error('copyFrom: the statement returned rows; only COPY … FROM STDIN is supported'));
      },
      handleDataRow() {},
      handleCopyData() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
    };
    void (client as unknown as { query(s: unknown): unknown }).query(submittable);
  });
}

/** The part of `pg`'s connection a COPY needs (not in its typings); `stream` is its socket. */
interface Connection {
  stream?: { write(chunk: Buffer): boolean };
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

const MAX_MESSAGE = 64 * 1024 * 1024;
/** The CopyData message's type byte ('d'). */
const COPY_DATA = 0x64;
