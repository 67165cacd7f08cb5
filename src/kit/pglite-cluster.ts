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

function freshCluster(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-pglite-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const db = await PGlite.create({ dataDir: dir });
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
