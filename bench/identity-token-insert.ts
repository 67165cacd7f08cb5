/**
 * PostgreSQL's CPU per stored token by batch size, through identity's own TokenWriter (the batched INSERT of
 * oidc/token-writer.ts, prepared, with its generic plan): B tokens asked for in one turn of the event loop become one
 * statement, as concurrent token requests do. Says how much of a token's database cost is per statement (round trip,
 * planning, commit) and how much per row, which is what the writer's number of statements in flight trades.
 *
 * Each measure is made with each access-token commit (IDENTITY_ACCESS_TOKEN_COMMIT) in turn, then a closed loop: BENCH_CLIENTS
 * callers each asking for its next token once its last is stored, through the writer as the service makes it (two
 * statements in flight), which is how concurrent token requests meet the commit.
 *
 *   node bench/identity-token-insert.ts        (BENCH_BATCHES=1,8,32,128, BENCH_ROWS=8000 per measure, 5 measures each,
 *                                               BENCH_COMMITS=synchronous,asynchronous, BENCH_CLIENTS=32,
 *                                               BENCH_IN_FLIGHT=2: the closed loop's statements in flight, a list to compare)
 */
import { randomBytes } from 'node:crypto';
import { freshPostgres } from '../test/support/postgres.ts';
import { openDatabase } from '../src/kit/db.ts';
import { migrate } from '../src/kit/migrations.ts';
import { TokenWriter, type AccessTokenCommit, type TokenValues } from '../src/identity/oidc/token-writer.ts';
import { postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';

const BATCHES = (process.env.BENCH_BATCHES ?? '1,8,32,128').split(',').map(Number);
const ROWS = Number(process.env.BENCH_ROWS ?? 8000);
const COMMITS = (process.env.BENCH_COMMITS ?? 'synchronous,asynchronous').split(',') as AccessTokenCommit[];
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const IN_FLIGHT = (process.env.BENCH_IN_FLIGHT ?? '2').split(',').map(Number);

const database = await freshPostgres('bench_token_insert');
const db = await openDatabase({ url: database.url, dataDir: '/tmp/unused', schema: 'identity', poolSize: 4 });
try {
  await migrate(db, new URL('../src/identity/migrations/', import.meta.url));
  const principal = (
    await db.query<{ id: string }>(
      `INSERT INTO principals (type, identifier, display_name) VALUES ('service', 'bench', 'bench') RETURNING id`,
    )
  ).rows[0]!.id;
  const app = (
    await db.query<{ id: string }>(
      `INSERT INTO oauth_apps (client_id, name, app_type, principal_id) VALUES ('bench', 'bench', 'machine', $1) RETURNING id`,
      [principal],
    )
  ).rows[0]!.id;
  const payload = `v1.${randomBytes(300).toString('base64url')}`;
  const row = (): TokenValues => [
    'client_credentials',
    randomBytes(32).toString('hex'),
    null,
    null,
    '["events:write"]',
    '[]',
    null,
    new Date(Date.now() + 900_000),
    null,
    '127.0.0.1',
    'bench',
    null,
    principal,
    'bench',
    app,
    payload,
    null,
  ];
  // One statement in flight, so each batch is exactly B rows.
  const writers = new Map(COMMITS.map((commit) => [commit, new TokenWriter(db, 1, 1024, commit)]));
  const write = async (writer: TokenWriter, batch: number, rows: number) => {
    for (let done = 0; done < rows; done += batch)
      await Promise.all(Array.from({ length: batch }, () => writer.write('access_token_signature', row())));
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `PostgreSQL CPU (every postgres process) and wall time per stored token, ${ROWS} tokens per measure, 5 measures; load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| rows per statement | commit | PostgreSQL CPU µs/token (5 measures) | median | wall µs/token (median) |',
  );
  console.log('|---|---|---|---|---|');
  for (const batch of BATCHES) {
    const cpu = new Map(COMMITS.map((c) => [c, [] as number[]]));
    const wall = new Map(COMMITS.map((c) => [c, [] as number[]]));
    for (const commit of COMMITS) await write(writers.get(commit)!, batch, Math.min(ROWS, 2000));
    // The commits alternate measure by measure, so a neighbour's burst falls on both.
    for (let k = 0; k < 5; k++)
      for (const commit of COMMITS) {
        const before = postgresCpuSeconds();
        const started = performance.now();
        await write(writers.get(commit)!, batch, ROWS);
        wall.get(commit)!.push(((performance.now() - started) * 1000) / ROWS);
        cpu.get(commit)!.push((postgresCpuSince(before) * 1e6) / ROWS);
      }
    for (const commit of COMMITS)
      console.log(
        `| ${batch} | ${commit} | ${cpu
          .get(commit)!
          .map((x) => x.toFixed(0))
          .join(', ')} | ${median(cpu.get(commit)!).toFixed(0)} | ${median(wall.get(commit)!).toFixed(0)} |`,
      );
  }

  // The closed loop: the service's writer (two statements in flight unless BENCH_IN_FLIGHT says, batches up to 128).
  console.log(
    `\n${CLIENTS} callers, each asking for its next token once its last is stored (${ROWS} tokens per measure):`,
  );
  console.log('| commit | statements in flight | tokens/s (5 measures) | median | PostgreSQL CPU µs/token (median) |');
  console.log('|---|---|---|---|---|');
  const sides = COMMITS.flatMap((commit) => IN_FLIGHT.map((inFlight) => ({ commit, inFlight })));
  const loops = sides.map((side) => ({
    ...side,
    writer: new TokenWriter(db, side.inFlight, 128, side.commit),
    rates: [] as number[],
    cpu: [] as number[],
  }));
  for (let k = 0; k < 5; k++)
    for (const loop of loops) {
      let left = ROWS;
      const before = postgresCpuSeconds();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (left-- > 0) await loop.writer.write('access_token_signature', row());
        }),
      );
      loop.rates.push(ROWS / ((performance.now() - started) / 1000));
      loop.cpu.push((postgresCpuSince(before) * 1e6) / ROWS);
    }
  for (const loop of loops)
    console.log(
      `| ${loop.commit} | ${loop.inFlight} | ${loop.rates.map((x) => x.toFixed(0)).join(', ')} | ${median(loop.rates).toFixed(0)} | ${median(loop.cpu).toFixed(0)} |`,
    );
} finally {
  await db.close();
  await database.drop();
}
