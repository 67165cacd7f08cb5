import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Counter } from 'prom-client';
import { createApp } from '../../src/kit/app.ts';
import { openDatabase } from '../../src/kit/db.ts';
import { Registry } from '../../src/kit/metrics.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const tmp = tempDir();
const pgdb = await freshPostgres('kitmetrics');
after(async () => {
  await pgdb.drop();
  tmp.remove();
});

function sample(text: string, series: string): number | undefined {
  const escaped = series.replace(/[{}"=,.*+?^$()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

test("/metrics: requests by route template and status with latency, the database pool, the process and the service's own", async () => {
  const dir = join(tmp.path, 'm');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '001_a.sql'), 'CREATE TABLE a (x int);');
  const migrations = pathToFileURL(dir + '/');
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'metrics_a', poolSize: 3 });
  await migrate(db, migrations);
  const registry = new Registry();
  const own = new Counter({ name: 'example_things_total', help: 'Things', registers: [registry] });
  const app = await createApp({
    name: 'example',
    version: '1',
    logLevel: 'silent',
    database: { db, migrations },
    metrics: registry,
  });
  app.get('/items/:id', async (request) => {
    own.inc();
    await db.query('SELECT 1');
    return { id: (request.params as { id: string }).id };
  });
  try {
    for (const id of ['a', 'b', 'c']) assert.equal((await app.inject({ url: `/items/${id}` })).statusCode, 200);
    assert.equal((await app.inject({ url: '/nowhere/at/all' })).statusCode, 404);
    const res = await app.inject({ url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    assert.equal(
      sample(text, 'http_requests_total{method="GET",route="/items/:id",status="200"}'),
      3,
      'one series per route template, not per path',
    );
    assert.equal(sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
    assert.ok(!text.includes('/items/a'), 'paths never become labels');
    assert.equal(sample(text, 'http_request_duration_seconds_count{method="GET",route="/items/:id",status="200"}'), 3);
    assert.equal(
      sample(text, 'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/items/:id",status="200"}'),
      3,
    );
    assert.equal(sample(text, 'example_things_total'), 3);
    const idle = sample(text, 'db_pool_connections{state="idle"}');
    assert.ok(idle !== undefined && idle >= 1, 'the pool keeps its connection');
    assert.equal(sample(text, 'db_pool_connections{state="in_use"}'), 0);
    assert.equal(sample(text, 'db_pool_waiting'), 0);
    assert.equal(sample(text, 'db_pool_connections_lost_total'), 0);
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
  } finally {
    await app.close();
  }
});
