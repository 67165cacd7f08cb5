import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLUSTER_CACHE, migratedClusterFolder } from '../../src/kit/pglite-cluster.ts';
import { prepareInstallClusters } from '../../src/kit/pglite-templates.ts';
import { openServiceDatabase } from '../../src/kit/service-config.ts';
import { tempDir } from '../support/tmp.ts';

// Issue 33: a fresh `npm start` applied the four services' 53 migrations to four new embedded databases, 2-4 s of the
// main thread on a quiet machine. The install now keeps, per service, a cluster with its migrations applied
// (src/kit/pglite-templates.ts), and a new folder of that service starts as a copy of it.

const tmp = tempDir('embedded-migrated-');
const migrations = pathToFileURL(`${join(tmp.path, 'migrations')}/`);
const schema = `test_migrated_${process.pid}`;
const cluster = { schema, migrations };
const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  tmp.remove();
});
const storage = { dataDir: join(tmp.path, 'data'), databaseUrl: undefined, serviceDatabaseUrl: undefined };

const appliedAt = async (db: Awaited<ReturnType<typeof openServiceDatabase>>) =>
  (await db.query<{ name: string; at: Date }>(`SELECT name, applied_at AS at FROM ${schema}.schema_migrations`)).rows;

test("a new embedded folder starts migrated from the install's cluster, and a later migration still applies", {
  timeout: 180_000,
}, async () => {
  mkdirSync(new URL(migrations), { recursive: true });
  writeFileSync(new URL('001_notes.sql', migrations), 'CREATE TABLE notes (body text NOT NULL);');
  const clusters = await prepareInstallClusters([cluster]);
  assert.deepEqual(
    clusters.map((c) => c.name),
    ['fresh', schema],
  );
  assert.equal(clusters[1]!.dir, migratedClusterFolder(cluster));
  made.push(clusters[1]!.dir);
  const opening = new Date();
  const db = await openServiceDatabase(schema, storage, { migrations });
  try {
    const rows = await appliedAt(db);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['001_notes.sql'],
    );
    assert.ok(rows[0]!.at < opening, 'applied by the install, not by this open');
    await db.query('INSERT INTO notes (body) VALUES ($1)', ['mine']);
  } finally {
    await db.close();
  }

  // A checkout with one more migration: the install's cluster no longer matches, an existing folder is migrated as
  // always, and a new folder starts fresh and is migrated at its open.
  writeFileSync(new URL('002_more.sql', migrations), 'ALTER TABLE notes ADD COLUMN n int;');
  const again = await openServiceDatabase(schema, storage, { migrations });
  try {
    assert.deepEqual(
      (await appliedAt(again)).map((r) => r.name),
      ['001_notes.sql', '002_more.sql'],
    );
    assert.deepEqual((await again.query('SELECT body, n FROM notes')).rows, [{ body: 'mine', n: null }]);
  } finally {
    await again.close();
  }
  const other = await openServiceDatabase(schema, { ...storage, dataDir: join(tmp.path, 'other') }, { migrations });
  try {
    const rows = await appliedAt(other);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['001_notes.sql', '002_more.sql'],
    );
    assert.equal((await other.query('SELECT count(*)::int AS n FROM notes')).rows[0]!.n, 0);
  } finally {
    await other.close();
  }
});

test('an install removes the work folders a killed install left beside the caches, not one still being made', async () => {
  const parent = dirname(CLUSTER_CACHE);
  mkdirSync(parent, { recursive: true });
  const left = join(parent, `initdb-killed${process.pid}`);
  const leftMigration = join(parent, `migrate-killed${process.pid}`);
  const working = join(parent, `initdb-working${process.pid}`);
  for (const dir of [left, leftMigration, working]) {
    mkdirSync(dir);
    made.push(dir);
  }
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  for (const dir of [left, leftMigration]) utimesSync(dir, twoHoursAgo, twoHoursAgo);
  await prepareInstallClusters([]);
  assert.equal(existsSync(left), false);
  assert.equal(existsSync(leftMigration), false);
  assert.equal(existsSync(working), true);
});
