import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/** Fills `dataDir` with a new cluster when it holds none (PG_VERSION absent); an existing one is left alone. */
export async function seedCluster(dataDir: string): Promise<void> {
  if (isCluster(dataDir)) return;
  await cp(await freshCluster(), dataDir, { recursive: true, force: false, errorOnExist: false });
}
