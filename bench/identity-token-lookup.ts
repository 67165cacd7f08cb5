/**
 * PostgreSQL's CPU per looked-up token, through identity's own TokenLookup (oidc/token-lookup.ts): B lookups asked for
 * in one turn of the event loop become one query, as concurrent introspections do. Each measure is made with each
 * column a lookup may read in turn: `access` (an access token's model, e.g. introspection hinted `access_token`, which
 * probes the access signatures only) and `either` (both columns, as every lookup did before issue 33).
 *
 *   node bench/identity-token-lookup.ts        (BENCH_BATCHES=1,8,32, BENCH_LOOKUPS=8000 per measure, 5 measures each,
 *                                               BENCH_TOKENS=100000 rows in oauth_tokens)
 */
import { randomBytes } from 'node:crypto';
import { freshPostgres } from '../test/support/postgres.ts';
import { openDatabase } from '../src/kit/db.ts';
import { migrate } from '../src/kit/migrations.ts';
import { TokenLookup, type LookupColumn } from '../src/identity/oidc/token-lookup.ts';
import { postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';

const BATCHES = (process.env.BENCH_BATCHES ?? '1,8,32').split(',').map(Number);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 8000);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 100_000);
const COLUMNS: LookupColumn[] = ['access', 'either'];

const database = await freshPostgres('bench_token_lookup');
const db = await openDatabase({ url: database.url, dataDir: '/tmp/unused', schema: 'identity', poolSize: 4 });
try {
  await migrate(db, new URL('../src/identity/migrations/', import.meta.url));
  const payload = `v1.${randomBytes(300).toString('base64url')}`;
  await db.query(
    `INSERT INTO oauth_tokens (kind, access_token_signature, client_id, payload, access_expires_at)
     SELECT 'client_credentials', md5(g::text) || md5((g + 1)::text), 'bench', $1, now() + interval '1 hour'
       FROM generate_series(1, $2::int) g`,
    [payload, TOKENS],
  );
  await db.query('ANALYZE oauth_tokens');
  const signatures = (
    await db.query<{ s: string }>(`SELECT access_token_signature AS s FROM oauth_tokens ORDER BY random() LIMIT 20000`)
  ).rows.map((r) => r.s);
  const lookup = new TokenLookup(db, 1, 1024);
  let next = 0;
  const read = async (column: LookupColumn, batch: number, lookups: number) => {
    for (let done = 0; done < lookups; done += batch)
      await Promise.all(
        Array.from({ length: batch }, () => lookup.find(signatures[next++ % signatures.length]!, column)),
      );
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `PostgreSQL CPU (every postgres process) and wall time per looked-up token, ${LOOKUPS} per measure, 5 measures, ${TOKENS} rows; load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| lookups per query | column | PostgreSQL CPU µs/lookup (5 measures) | median | wall µs/lookup (median) |',
  );
  console.log('|---|---|---|---|---|');
  for (const batch of BATCHES) {
    const cpu = new Map(COLUMNS.map((c) => [c, [] as number[]]));
    const wall = new Map(COLUMNS.map((c) => [c, [] as number[]]));
    for (const column of COLUMNS) await read(column, batch, Math.min(LOOKUPS, 2000));
    // The columns alternate measure by measure, so a neighbour's burst falls on both.
    for (let k = 0; k < 5; k++)
      for (const column of COLUMNS) {
        const before = postgresCpuSeconds();
        const started = performance.now();
        await read(column, batch, LOOKUPS);
        wall.get(column)!.push(((performance.now() - started) * 1000) / LOOKUPS);
        cpu.get(column)!.push((postgresCpuSince(before) * 1e6) / LOOKUPS);
      }
    for (const column of COLUMNS)
      console.log(
        `| ${batch} | ${column} | ${cpu
          .get(column)!
          .map((x) => x.toFixed(0))
          .join(', ')} | ${median(cpu.get(column)!).toFixed(0)} | ${median(wall.get(column)!).toFixed(0)} |`,
      );
  }
} finally {
  await db.close();
  await database.drop();
}
