import { connect, type Socket } from 'node:net';

/**
 * The benchmarks' load generator shares the machine's two cores with the server and PostgreSQL, so it is
 * kept light: one keep-alive socket per concurrent client, one request at a time, requests written as
 * prebuilt bytes, answers framed by their Content-Length (every endpoint measured sends one) rather than
 * going through node:http's client, which costs more CPU per request than the servers it measures.
 */
export class Connection {
  private socket: Socket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void } | undefined;
  private readonly target: URL;

  constructor(target: URL) {
    this.target = target;
  }

  request(bytes: Buffer): Promise<{ status: number; body: string }> {
    if (!this.socket) this.open();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket!.write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
  }

  private open(): void {
    const socket = connect({ host: this.target.hostname, port: Number(this.target.port), noDelay: true });
    this.socket = socket;
    this.buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (err?: Error) => {
      if (this.socket === socket) this.socket = undefined;
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(err ?? new Error('connection closed'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const headerEnd = this.buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headerEnd).toLowerCase();
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (!length) {
      this.socket?.destroy(new Error('answer without content-length'));
      return;
    }
    const end = headerEnd + 4 + Number(length[1]);
    if (this.buffered.length < end) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.toString('utf8', headerEnd + 4, end);
    this.buffered = this.buffered.subarray(end);
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve({ status, body });
  }
}

/** The value below which `p` percent of the sorted samples fall. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
