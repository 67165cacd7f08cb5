/**
 * Hostile bodies: the ingest service on real PostgreSQL in its own process, sent several 9.9 MB bodies at once
 * (just under the 10 MB limit, so every byte is read) that cost the most memory per byte once parsed. Each shape
 * runs against a fresh server process, so each peak RSS (`VmHWM`) is that shape's alone. Prints, per shape, the
 * answers and the server's RSS before and its peak during the load.
 *
 *   npm run bench:ingest-hostile     (BENCH_CONCURRENCY=4 BENCH_ROUNDS=3 BENCH_SHAPES=deep,wide BENCH_POSTGRES_URL=postgres://...)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Connection } from './support/connection.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BODY_BYTES = 9_900_000;

const EVENT_HEAD =
  '{"events":[{"event_id":"hostile","project_id":"bench","session.id":"s","event.type":"custom","event.timestamp":"2025-01-01T00:00:00Z","metadata":{"x":[';

/**
 * One event whose metadata holds `count` copies of `unit` side by side, then (when the units leave room) a string
 * filling the body to BODY_BYTES: every byte is still read, and the units are what the parser has to build.
 */
function inOneEvent(unit: string, count = Infinity): Buffer {
  const tail = ']}}]}';
  const fits = Math.floor((BODY_BYTES - EVENT_HEAD.length - tail.length + 1) / (unit.length + 1));
  const units = Array(Math.min(count, fits)).fill(unit).join(',');
  const used = EVENT_HEAD.length + units.length + tail.length;
  const padding = used < BODY_BYTES - 20 ? `],"pad":"${'x'.repeat(BODY_BYTES - used - 11)}"` : ']';
  return Buffer.from(EVENT_HEAD + units + padding + tail.slice(1));
}

const SHAPES: { name: string; what: string; body: () => Buffer }[] = [
  {
    name: 'deep',
    what: 'one chain of nested arrays, 4.95 million levels ([[[[…]]]])',
    body: () => {
      const half = (BODY_BYTES - '{"events":[]}'.length) / 2;
      return Buffer.from(`{"events":[${'['.repeat(half)}${']'.repeat(half)}]}`);
    },
  },
  {
    name: 'wide',
    what: 'empty arrays side by side in one event ([],[],[],…: 3.3 million arrays)',
    body: () => inOneEvent('[]'),
  },
  {
    name: 'chains',
    what: 'chains of 120 nested arrays side by side in one event (125 of the 128 levels a body may have; 4.9 million arrays)',
    body: () => inOneEvent(`${'['.repeat(120)}${']'.repeat(120)}`),
  },
  {
    name: 'at-the-limits',
    what: 'as many 120-deep chains as a body may hold (990,000 arrays, just under the 1,000,000 values), the rest one string',
    body: () => inOneEvent(`${'['.repeat(120)}${']'.repeat(120)}`, 8181),
  },
];

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli.ts', 'start', 'ingest'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /ingest\s+(http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

function request(url: URL, key: string, body: Buffer): Buffer {
  const head = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nx-svc-api-key: ${key}\r\ncontent-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

async function main(): Promise<void> {
  const adminUrl =
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `bench_hostile_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const token = randomBytes(24).toString('hex');
  const env = {
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    INGEST_PORT: '0',
    INGEST_ADMIN_TOKEN: token,
    LOG_LEVEL: 'warn',
    DATA_DIR: `/tmp/${dbName}`,
  };
  console.log(
    `ingest hostile bodies: ${CONCURRENCY} connections at once, ${ROUNDS} bodies of ${(BODY_BYTES / 1e6).toFixed(1)} MB each, a fresh server per shape`,
  );
  let key: string | undefined;
  try {
    const only = process.env.BENCH_SHAPES?.split(',');
    for (const shape of SHAPES.filter((s) => !only || only.includes(s.name))) {
      const { child, url } = await startServer(env);
      try {
        const api = (path: string, body: unknown) =>
          fetch(new URL(path, url), {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then((r) => r.json() as Promise<Record<string, string>>);
        if (!key) {
          await api('/api/v1/projects', { name: 'bench', id: 'bench' });
          key = (await api('/api/v1/projects/bench/keys', { name: 'bench' })).key!;
        }
        const target = new URL('/v1/events', url);
        const bytes = request(target, key, shape.body());
        // One ordinary request first, so the figure before the load is a warmed-up server's.
        const warm = new Connection(target);
        await warm.request(request(target, key, Buffer.from('{"events":[]}')));
        warm.close();
        const before = memoryMb(child.pid!);
        const answers = new Map<string, number>();
        const started = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            const connection = new Connection(target);
            try {
              for (let i = 0; i < ROUNDS; i++) {
                const answer = await connection
                  .request(bytes)
                  .catch((err: Error) => ({ status: 0, body: err.message }));
                const label =
                  answer.status === 202
                    ? `202 ${answer.body}`
                    : `${answer.status} ${/"code":"([^"]+)"/.exec(answer.body)?.[1] ?? answer.body.slice(0, 60)}`;
                answers.set(label, (answers.get(label) ?? 0) + 1);
              }
            } finally {
              connection.close();
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        const after = memoryMb(child.pid!);
        console.log(`\n${shape.name}: ${shape.what}`);
        console.log(`  answers: ${[...answers].map(([a, n]) => `${n} × ${a}`).join('; ')} in ${seconds.toFixed(1)} s`);
        console.log(
          `  server RSS before ${before.rss.toFixed(0)} MB, peak during the load ${after.peak.toFixed(0)} MB (+${(after.peak - before.rss).toFixed(0)} MB)`,
        );
      } finally {
        await stop(child);
      }
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
