import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/kit/app.ts';
import { buildAuditApp, openAuditDatabase } from '../../src/audit/app.ts';
import { AUDIT_KEYS } from '../../src/audit/auth/keys.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

/** Settings that keep audits of the tests' tiny local pages quick: short idle wait and settle delay. */
export const FAST_AUDITS = {
  AUDIT_ALLOW_HOSTS: '127.0.0.1',
  AUDIT_NETWORK_IDLE_MS: '1500',
  AUDIT_SETTLE_MS: '50',
  AUDIT_PAGE_TIMEOUT_SECONDS: '30',
  AUDIT_POLL_MS: '100',
};

export interface AuditHarness {
  app: App;
  database: FreshDatabase;
  env: Record<string, string>;
  sql: pg.Client;
  key: string;
  /** A second key, for checking that callers see only their own jobs. */
  otherKey: string;
  call(
    method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH',
    url: string,
    payload?: unknown,
    key?: string,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** One audit app (and so one Chromium) per test file, on its own fresh database. */
export async function startAudit(env: Record<string, string> = {}, label = 'audit'): Promise<AuditHarness> {
  const database = await freshPostgres(label);
  const dataDir = tempDir();
  const fullEnv = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...FAST_AUDITS,
    ...env,
  };
  const config = loadAuditConfig(fullEnv);
  const app = await buildAuditApp(config);
  await app.ready();
  const db = await openAuditDatabase(config);
  const key = (await AUDIT_KEYS.create(db, { name: 'test' }))!.key;
  const otherKey = (await AUDIT_KEYS.create(db, { name: 'other' }))!.key;
  await db.close();
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  await sql.query('SET search_path = audit');
  return {
    app,
    database,
    env: fullEnv,
    sql,
    key,
    otherKey,
    call(method, url, payload, as = key) {
      return app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${as}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    },
    async close() {
      await sql.end().catch(() => {});
      await app.close();
      await database.drop();
      dataDir.remove();
    },
  };
}

export interface SitePage {
  /** Text, or bytes (media files). */
  body: string | Buffer;
  status?: number;
  headers?: Record<string, string>;
  /** Held until this promise settles, to catch an audit mid-page; a function is asked anew for each request. */
  holdUntil?: Promise<unknown> | (() => Promise<unknown>);
}

export interface TestSite {
  origin: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  /** Each request's path and when it arrived (`performance.now()` of the test process), in order. */
  arrivals: Array<{ path: string; at: number }>;
  /** Resolves the first time `path` is requested. */
  requested(path: string): Promise<void>;
  /** Resolves when a request for `path` is dropped by the client before its answer was sent. */
  abandoned(path: string): Promise<void>;
  close(): Promise<void>;
}

/** A small web site on 127.0.0.1 (or another loopback address) serving fixed pages; unknown paths are 404. */
export async function serveSite(pages: Record<string, SitePage | string>, host = '127.0.0.1'): Promise<TestSite> {
  const hits: string[] = [];
  const arrivals: Array<{ path: string; at: number }> = [];
  const waiters = new Map<string, Array<() => void>>();
  const abandonedPaths: string[] = [];
  const abandonWaiters = new Map<string, Array<() => void>>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(req.url ?? '/');
    arrivals.push({ path, at: performance.now() });
    for (const resolve of waiters.get(path) ?? []) resolve();
    waiters.delete(path);
    const entry = pages[req.url ?? '/'] ?? pages[path];
    const page: SitePage | undefined = typeof entry === 'string' ? { body: entry } : entry;
    if (!page) {
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<!doctype html><html lang="en"><title>Not found</title><main><h1>Not found</h1></main></html>');
      return;
    }
    res.on('close', () => {
      if (res.writableEnded) return;
      abandonedPaths.push(path);
      for (const resolve of abandonWaiters.get(path) ?? []) resolve();
      abandonWaiters.delete(path);
    });
    const send = () =>
      !res.destroyed &&
      res.writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.body);
    const hold = typeof page.holdUntil === 'function' ? page.holdUntil() : page.holdUntil;
    if (hold) hold.then(send, send);
    else send();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    hits,
    arrivals,
    requested(path) {
      if (hits.some((h) => h.split('?')[0] === path)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(path, [...(waiters.get(path) ?? []), resolve]));
    },
    abandoned(path) {
      if (abandonedPaths.includes(path)) return Promise.resolve();
      return new Promise((resolve) => abandonWaiters.set(path, [...(abandonWaiters.get(path) ?? []), resolve]));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid page of the given body: language, title, main landmark and a level-one heading. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

/** Polls the job until it reaches one of `statuses` (the API offers no push), at most `timeoutMs`. */
export async function waitForJob(
  h: AuditHarness,
  id: string,
  statuses: string[],
  timeoutMs = 60_000,
  key = h.key,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.call('GET', `/api/v1/audits/${id}`, undefined, key);
    const job = res.json();
    if (statuses.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
