import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A new embedded database starts as a copy of one fresh cluster made once per process. PGlite's first open of an empty
 * folder runs initdb in WebAssembly on the main thread (10–20 s on a busy 2-core machine), so `platform start` on a
 * fresh clone ran it four times, one after the other whatever the start's concurrency; a copy of the cluster (about
 * 40 MB of files) takes well under a second. The clusters copied share PostgreSQL's system identifier, which nothing
 * here reads (no replication between them).
 */
let template: Promise<string> | undefined;

/**
 * How every embedded database is started: PGlite's own parameters, with PostgreSQL's buffer pool at 16 MB instead of
 * the 128 MB PGlite keeps from PostgreSQL. The pool is memory of each instance's WebAssembly heap, filled as pages are
 * read, and `platform start` holds four instances in one process: at 128 MB they were most of its 1.2 GB; at 16 MB the
 * four open clusters take about 350 MB instead of 820 MB (bench/README.md, "start"). An embedded database is the
 * development and small-install default; its tables fit in 16 MB or are read from the page cache, and an install that
 * needs more uses PostgreSQL (`DATABASE_URL`). WAL buffers follow the pool (1/32 of it).
 */
export const EMBEDDED_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

function freshCluster(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-pglite-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const db = await PGlite.create({ dataDir: dir, startParams: [...EMBEDDED_START_PARAMS] });
    await db.close();
    return dir;
  })();
  // A failure is not kept: the next new folder tries again.
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/** Fills `dataDir` with a new cluster when it holds none (PG_VERSION absent); an existing one is left alone. */
export async function seedCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  await cp(await freshCluster(), dataDir, { recursive: true, force: false, errorOnExist: false });
}
