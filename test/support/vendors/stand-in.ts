import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stand-in received it. */
export interface Received {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When it arrived (ms since epoch). */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A scripted answer given instead of the vendor's normal one (an outage, a rate limit, a slow or hung server). */
export interface Fault {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Waits this long before answering (longer than the sender's time limit makes it a timeout). */
  delayMs?: number;
}

/**
 * A local HTTP server standing in for a vendor: each vendor module gives the handler that speaks that vendor's
 * documented API; this part records every request and plays scripted faults first, one per request.
 */
export abstract class StandIn {
  readonly received: Received[] = [];
  private readonly faults: Fault[] = [];
  private server: Server | undefined;
  private timers = new Set<NodeJS.Timeout>();
  url = '';

  /** The vendor's own answer to a request that got no scripted fault. */
  protected abstract answer(request: Received): Answer;
  /** What answers a request without a scripted fault: the vendor, unless a test puts a wrapper around it. */
  answerFor: (request: Received) => Answer = (request) => this.answer(request);
  /** The vendor's request size limit and its answer beyond it. */
  protected abstract readonly maxBodyBytes: number;
  protected abstract tooLarge(): Answer;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let refused = false;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > this.maxBodyBytes) refused = true;
        else chunks.push(c);
      });
      req.on('end', () => {
        const request: Received = {
          method: req.method ?? 'GET',
          url: new URL(req.url ?? '/', this.url),
          headers: req.headers,
          body: Buffer.concat(chunks),
          at: Date.now(),
        };
        this.received.push(request);
        const fault = this.faults.shift();
        const answer = refused
          ? this.tooLarge()
          : fault?.status !== undefined
            ? { status: fault.status, headers: fault.headers, body: fault.body }
            : this.answerFor(request);
        const send = () => {
          if (res.destroyed) return;
          const body =
            answer.body === undefined
              ? ''
              : typeof answer.body === 'string'
                ? answer.body
                : JSON.stringify(answer.body);
          res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
          res.end(body);
        };
        if (fault?.delayMs) {
          const t = setTimeout(() => {
            this.timers.delete(t);
            send();
          }, fault.delayMs);
          this.timers.add(t);
        } else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next `times` requests get this answer (after the ones already scripted). */
  fail(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /** Requests that reached the vendor's own handler or a fault, with a JSON body. */
  bodies(): unknown[] {
    return this.received.map((r) => JSON.parse(r.body.toString('utf8')) as unknown);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export function basicAuth(headers: IncomingHttpHeaders): { user: string; password: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? { user: decoded, password: '' } : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export function parseJsonBody(request: Received): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(request.body.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The ISO 8601 profile vendors document for string timestamps (RFC 3339: seconds and a colon in the offset
 * required). Stricter than the ingest service's own reading, so a form passed on unconverted is caught here.
 */
export function isRfc3339(value: unknown): boolean {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}
