import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openDatabase } from './db.ts';
import { migrate } from './migrations.ts';
import { CLUSTER_CACHE, type MigratedCluster, migratedClusterFolder, prepareCluster } from './pglite-cluster.ts';

/**
 * What `npm install` makes for the embedded databases (scripts/build.ts): the fresh cluster, then one copy of it per
 * service with the service's schema and migrations applied (src/kit/pglite-cluster.ts, `seedCluster`), so that a
 * first `npm start` copies four migrated clusters and applies no migration. One after the other: an install has the
 * time, and one PGlite instance at a time holds the least memory. Resolves with each folder and whether it was made now.
 */
export async function prepareInstallClusters(
  services: readonly MigratedCluster[],
): Promise<{ name: string; dir: string; made: boolean }[]> {
  await removeAbandoned();
  const fresh = await prepareCluster();
  const made = [{ name: 'fresh', ...fresh }];
  for (const s of services) made.push({ name: s.schema, ...(await prepareMigrated(s)) });
  return made;
}

async function prepareMigrated(cluster: MigratedCluster): Promise<{ dir: string; made: boolean }> {
  const dir = migratedClusterFolder(cluster);
  if (existsSync(join(dir, 'PG_VERSION'))) return { dir, made: false };
  // Migrated beside its final name, then renamed: a folder under that name is always a whole, migrated cluster.
  const work = await mkdtemp(join(dirname(CLUSTER_CACHE), `migrate-${cluster.schema}-`));
  try {
    const db = await openDatabase({ dataDir: work, schema: cluster.schema, owner: 'npm install' });
    try {
      await migrate(db, cluster.migrations);
    } finally {
      // Closing releases the folder's lock (its file goes), so the copies start unlocked.
      await db.close();
    }
    await removeOlder(cluster.schema);
    await rename(work, dir);
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    // Another install renamed its own first: it is as good as this one.
    if (!existsSync(join(dir, 'PG_VERSION'))) throw err;
  }
  return { dir, made: true };
}

/** Older than any initdb or migration of an install takes: a folder this old was left by a process killed in it. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/**
 * Removes the work folders (`initdb-*`, `migrate-*`) an install or a start killed while making a cluster left beside
 * the caches, ~40 MB each. One still being made by another process is younger than ABANDONED_AFTER_MS and stays.
 */
async function removeAbandoned(): Promise<void> {
  const parent = dirname(CLUSTER_CACHE);
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    if (!/^(initdb|migrate)-/.test(name)) continue;
    const dir = join(parent, name);
    const changed = await stat(dir).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - changed > ABANDONED_AFTER_MS) await rm(dir, { recursive: true, force: true });
  }
}

/** The service's migrated clusters of other migrations (an older checkout's): no new database is copied from them. */
async function removeOlder(schema: string): Promise<void> {
  const prefix = `${basename(CLUSTER_CACHE)}-${schema}-`;
  const parent = dirname(CLUSTER_CACHE);
  for (const f of await readdir(parent))
    if (f.startsWith(prefix)) await rm(join(parent, f), { recursive: true, force: true });
}
