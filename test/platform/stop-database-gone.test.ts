import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgProxy } from '../support/pg-proxy.ts';
import { freshPostgres } from '../support/postgres.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { tempDir } from '../support/tmp.ts';

const SERVICES = ['identity', 'dashboard', 'audit', 'ingest'];

/**
 * `platform start` stopped after its database went away: the dashboard's evaluator could not release its claims on
 * rules, and the stop printed `error while stopping: error: database "…" does not exist` and exited 1, though nothing
 * was left undone that a claim lapsing does not do. Each case: the four services on one database, taken away, SIGTERM.
 */
async function stopWithoutDatabase(
  takeAway: 'drop' | 'unreachable',
): Promise<{ code: number | null; stderr: string; log: string }> {
  const database = await freshPostgres('stopgone');
  const proxy = await startPgProxy();
  const dataDir = tempDir();
  try {
    const platform = await startServiceProcess(SERVICES, {
      DATABASE_URL: proxy.url(database.url),
      DATA_DIR: dataDir.path,
      PLATFORM_SECRET_KEY: 'f'.repeat(64),
      LOG_FORMAT: 'json',
      INGEST_ADMIN_TOKEN: 'stop-database-gone-admin-token-0123',
      // The evaluator looks often, so it has met the outage before the stop.
      DASHBOARD_SCHEDULER_TICK_MS: '100',
    });
    if (takeAway === 'drop') await database.drop();
    else proxy.down();
    await new Promise((r) => setTimeout(r, 1_000));
    const code = await platform.stop();
    return { code, stderr: platform.stderr(), log: platform.stdout() };
  } finally {
    await proxy.close();
    await database.drop();
    dataDir.remove();
  }
}

for (const takeAway of ['drop', 'unreachable'] as const) {
  test(`stopping with the database ${takeAway === 'drop' ? 'dropped' : 'unreachable'}: exit 0, no line but the stop's own`, {
    timeout: 180_000,
  }, async () => {
    const { code, stderr, log } = await stopWithoutDatabase(takeAway);
    assert.equal(stderr, 'SIGTERM: stopping (finishing requests in flight)\n');
    assert.equal(code, 0);
    // What the evaluator could not do is said once, in the log, with what follows from it.
    const unreleased = log
      .split('\n')
      .filter((l) => l.includes('alert evaluator stopped without releasing its claims'));
    assert.equal(unreleased.length, 1, log.slice(-4_000));
  });
}
