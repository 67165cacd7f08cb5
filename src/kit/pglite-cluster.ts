import { createHash } from 'node:crypto';
import { constants, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * How every embedded database is started: PGlite's own parameters, with PostgreSQL's buffer pool at 16 MB instead of
 * the 128 MB PGlite keeps from PostgreSQL. The pool is memory of each instance's WebAssembly heap, filled as pages are
 * read, and `platform start` holds four instances in one process: at 128 MB they were most of its 1.2 GB; at 16 MB the
 * four open clusters take about 350 MB instead of 820 MB (bench/README.md, "start"). An embedded database is the
 * development and small-install default; its tables fit in 16 MB or are read from the page cache, and an install that
 * needs more uses PostgreSQL (`DATABASE_URL`). WAL buffers follow the pool (1/32 of it).
 */
export const EMBEDDED_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

const pgliteEntry = import.meta.resolve('@electric-sql/pglite');
const pgliteVersion = (JSON.parse(readFileSync(new URL('../package.json', pgliteEntry), 'utf8')) as { version: string })
  .version;

/**
 * Where the fresh cluster is kept for every process of this install: `.cache/platform/pglite-<version>` in the
 * node_modules folder that holds PGlite (the usual place of a package's cache; a new PGlite version makes a new one).
 * `npm install` makes it (scripts/build.ts); a process that finds none makes it.
 */
export const CLUSTER_CACHE = fileURLToPath(new URL(`../../../.cache/platform/pglite-${pgliteVersion}`, pgliteEntry));

/**
 * A new embedded database starts as a copy of one fresh cluster. PGlite's first open of an empty folder runs initdb in
 * WebAssembly on the main thread (10–23 s on the busy 2-core machine of bench/README.md): once per service made a
 * fresh `npm start` take 40 s (issue 23), once per process still made every fresh start, test or command on a new
 * folder pay it (issue 33). The cluster is now made once per install and kept (CLUSTER_CACHE); copying its ~40 MB
 * takes about a second. The copies share PostgreSQL's system identifier, which nothing here reads (no replication
 * between them). Where node_modules cannot be written, the cluster is made for this process only, as before.
 */
let template: Promise<string> | undefined;

function freshCluster(): Promise<string> {
  template ??= makeCluster();
  // A failure is not kept: the next new folder tries again.
  template.catch(() => {
    template = undefined;
  });
  return template;
}

const isCluster = (dir: string) => existsSync(join(dir, 'PG_VERSION'));

async function initdb(dir: string): Promise<void> {
  const db = await PGlite.create({ dataDir: dir, startParams: [...EMBEDDED_START_PARAMS] });
  await db.close();
}

async function makeCluster(): Promise<string> {
  if (isCluster(CLUSTER_CACHE)) return CLUSTER_CACHE;
  let dir: string;
  try {
    await mkdir(dirname(CLUSTER_CACHE), { recursive: true });
    // Made beside its final name, then renamed: a cluster under that name is always a whole one.
    dir = await mkdtemp(join(dirname(CLUSTER_CACHE), 'initdb-'));
  } catch {
    return processCluster();
  }
  try {
    await initdb(dir);
    await rename(dir, CLUSTER_CACHE);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    // Another process renamed its own cluster first: it is as good as this one.
    if (!isCluster(CLUSTER_CACHE)) throw err;
  }
  return CLUSTER_CACHE;
}

/** A cluster for this process only, removed at exit. */
async function processCluster(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'platform-pglite-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await initdb(dir);
  return dir;
}

/**
 * Makes the install's fresh cluster unless it exists (`npm install` runs it, so that the first `npm start` only
 * copies it); resolves with its folder and whether it was made now.
 */
export async function prepareCluster(): Promise<{ dir: string; made: boolean }> {
  const made = !isCluster(CLUSTER_CACHE);
  return { dir: await freshCluster(), made };
}

/** A service's schema and the folder of its migrations: what a migrated cluster holds (src/kit/pglite-templates.ts). */
export interface MigratedCluster {
  schema: string;
  migrations: URL;
}

/**
 * Where the install keeps the fresh cluster with `schema` made and its migrations applied, named after the migration
 * files' names and contents: a checkout with other migrations looks for another folder, and until the install makes
 * it (`npm install`), its new databases start from the fresh cluster and are migrated at start, as before.
 */
export function migratedClusterFolder(cluster: MigratedCluster): string {
  const hash = createHash('sha256').update(cluster.schema);
  const dir = fileURLToPath(cluster.migrations);
  for (const file of readdirSync(dir).sort()) hash.update(`\0${file}\0`).update(readFileSync(join(dir, file)));
  return `${CLUSTER_CACHE}-${cluster.schema}-${hash.digest('hex').slice(0, 16)}`;
}

/** Every cluster the install keeps for this PGlite version: the fresh one and the migrated ones. */
export function installClusters(): string[] {
  const parent = dirname(CLUSTER_CACHE);
  const name = basename(CLUSTER_CACHE);
  if (!existsSync(parent)) return [];
  return readdirSync(parent)
    .filter((f) => f === name || f.startsWith(`${name}-`))
    .map((f) => join(parent, f));
}

/**
 * Fills `dataDir` with a new cluster when it holds none (PG_VERSION absent); an existing one is left alone. With
 * `migrated`, the copy is of the install's cluster with those migrations already applied when there is one: a new
 * database then runs none of them at start (53 for the four services, 2-4 s of the main thread on a quiet machine).
 */
export async function seedCluster(dataDir: string, migrated?: MigratedCluster): Promise<void> {
  if (isCluster(dataDir)) return;
  const ready = migrated && migratedClusterFolder(migrated);
  await copyCluster(ready && isCluster(ready) ? ready : await freshCluster(), dataDir);
}

/**
 * Copies a cluster's ~970 files all at once (libuv's thread pool does four at a time): `fs.cp` copies one after the
 * other and took 2-3.5 s a cluster on the busy machine of bench/README.md, this 0.5-0.9 s. PG_VERSION goes last, so
 * that a copy cut short (the process killed) is not taken for a cluster: the next start copies again over it.
 */
async function copyCluster(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const path = (base: string, e: { parentPath: string; name: string }) =>
    join(base, e.parentPath.slice(from.length), e.name);
  await mkdir(to, { recursive: true });
  for (const e of entries) if (e.isDirectory()) await mkdir(path(to, e), { recursive: true });
  const last = join(from, 'PG_VERSION');
  const files = entries.filter((e) => e.isFile() && path(from, e) !== last);
  await Promise.all(files.map((e) => copyFile(path(from, e), path(to, e), constants.COPYFILE_FICLONE)));
  await copyFile(last, join(to, 'PG_VERSION'));
}
