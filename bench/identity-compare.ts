/**
 * Client-credentials issuance of this tree against another checkout's (e.g. an older commit extracted with
 * `git archive`), in one process at the same time, so both meet the same machine: on a machine shared with
 * other work, requests per second of two runs minutes apart say more about the neighbours than the code.
 *
 *   node bench/identity-compare.ts OTHER_TREE      (BENCH_ROUNDS=8, BENCH_BLOCK=2000 requests, BENCH_CONCURRENCY=32)
 *
 * Both trees' identity apps are built here on fresh PostgreSQL databases; then blocks of token requests
 * (`app.inject`, `client_secret_basic`, one scope, `BENCH_CONCURRENCY` in flight) go to one tree and the
 * other in turn. Per block: this process's CPU time per request (user + system: the app's work, the same
 * inject overhead on both sides), the CPU of the PostgreSQL backends serving that side's database (read
 * from /proc: PostgreSQL must run on this machine) and wall time per request. The median of the rounds is
 * printed. What this leaves out on both sides alike: HTTP parsing and the socket writes (inject).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshPostgres, TEST_POSTGRES_URL, type FreshDatabase } from '../test/support/postgres.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

interface Side {
  name: string;
  database: FreshDatabase;
  inject: () => Promise<{ statusCode: number; body: string }>;
  close: () => Promise<void>;
  cpu: number[];
  wall: number[];
  /** CPU of the PostgreSQL backends serving this side's database, per request (µs). */
  pgCpu: number[];
}

const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
await admin.connect();
const TICK_MICROS = 10_000; // /proc reports CPU in clock ticks of 1/100 s

/** CPU time so far of the PostgreSQL backends connected to `database` (same machine: read from /proc), in µs. */
async function backendsCpu(database: FreshDatabase): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    new URL(database.url).pathname.slice(1),
  ]);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // A backend that ended meanwhile.
    }
  }
  return ticks * TICK_MICROS;
}

async function side(name: string, root: string): Promise<Side> {
  const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
  const { buildIdentityApp, identityRuntime } = await load('src/identity/app.ts');
  const { loadIdentityConfig } = await load('src/identity/config.ts');
  const { createApp, createSecret } = await load('src/identity/apps/store.ts');
  const database = await freshPostgres('bench_idcompare');
  const config = loadIdentityConfig({
    IDENTITY_DATABASE_URL: database.url,
    IDENTITY_ISSUER: 'http://localhost:4000',
    LOG_LEVEL: 'warn',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: `/tmp/identity-compare-${process.pid}-${name}`,
    IDENTITY_EXTRA_SCOPES: 'events:write',
  });
  const app = await buildIdentityApp(config);
  await app.ready();
  const rt = identityRuntime(app);
  const machine = await createApp(
    rt.db,
    { name: 'Bench', appType: 'machine', allowedScopes: ['events:write'] },
    rt.scopes,
  );
  const secret = (await createSecret(rt.db, machine.id)).secret;
  const authorization = `Basic ${Buffer.from(`${machine.clientId}:${secret}`).toString('base64')}`;
  return {
    name,
    database,
    inject: () =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials&scope=events%3Awrite',
      }),
    close: () => app.close(),
    cpu: [],
    wall: [],
    pgCpu: [],
  };
}

async function block(s: Side, n: number, record: boolean): Promise<void> {
  let next = 0;
  let failed = 0;
  const pg0 = await backendsCpu(s.database);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++;
        const res = await s.inject();
        if (res.statusCode !== 200 || !res.body.includes('"access_token"')) failed++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const pgCpu = (await backendsCpu(s.database)) - pg0;
  if (failed) throw new Error(`${s.name}: ${failed} token requests failed`);
  if (!record) return;
  s.cpu.push((cpu.user + cpu.system) / n);
  s.wall.push(((performance.now() - t0) * 1000) / n);
  s.pgCpu.push(pgCpu / n);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const other = process.argv[2];
if (!other) {
  console.error('usage: node bench/identity-compare.ts OTHER_TREE');
  process.exit(2);
}
const sides = [await side('this tree', resolve(import.meta.dirname, '..')), await side(other, other)];
try {
  for (const s of sides) await block(s, BLOCK / 2, false); // warm-up: JIT, caches, pool connections
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate who goes first, so neither side always follows the same one.
    for (const s of round % 2 ? [...sides].reverse() : sides) await block(s, BLOCK, true);
  }
  console.log(
    `client_credentials via inject, ${ROUNDS} rounds of ${BLOCK} requests, ${CONCURRENCY} in flight; median (min–max)`,
  );
  const cell = (xs: number[]) =>
    `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  console.log('| tree | server CPU µs/request | PostgreSQL CPU µs/request | wall µs/request |');
  console.log('|---|---|---|---|');
  for (const s of sides) console.log(`| ${s.name} | ${cell(s.cpu)} | ${cell(s.pgCpu)} | ${cell(s.wall)} |`);
} finally {
  for (const s of sides) {
    await s.close();
    await s.database.drop();
  }
  await admin.end();
}
