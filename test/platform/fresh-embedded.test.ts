import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Database } from '../../src/kit/db.ts';
import { openServiceDatabase } from '../../src/kit/service-config.ts';
import { tempDir } from '../support/tmp.ts';

// Issue 23: `npm start` on a fresh clone ran PGlite's initdb once per service, one after the other on the main thread
// (most of a 40 s start). New embedded folders are now copies of one cluster made once per process
// (src/kit/pglite-cluster.ts): the same cluster underneath, each folder its own database from then on.

const tmp = tempDir('fresh-embedded-');
after(() => tmp.remove());
const storage = { dataDir: tmp.path, databaseUrl: undefined, serviceDatabaseUrl: undefined };

const setting = async (db: Database, name: string) =>
  (await db.query<{ value: string }>('SELECT current_setting($1) AS value', [name])).rows[0]!.value;

const systemId = async (db: Database) =>
  (await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0]!.id;

test('new embedded folders opened together come from one cluster, and each is its own database', {
  timeout: 180_000,
}, async () => {
  const [identity, ingest] = await Promise.all([
    openServiceDatabase('identity', storage),
    openServiceDatabase('ingest', storage),
  ]);
  try {
    assert.equal(await systemId(identity), await systemId(ingest), 'one initdb for both');
    // Issue 33: four instances in one process at PGlite's 128 MB each were most of `npm start`'s 1.2 GB.
    assert.equal(await setting(identity, 'shared_buffers'), '16MB');
    await identity.exec('CREATE TABLE notes (body text); INSERT INTO notes VALUES ($$kept$$)');
    const elsewhere = await ingest.query<{ found: string | null }>(
      "SELECT to_regclass('identity.notes')::text AS found",
    );
    assert.equal(elsewhere.rows[0]!.found, null, "identity's table is not in ingest's folder");
  } finally {
    await Promise.all([identity.close(), ingest.close()]);
  }
  const reopened = await openServiceDatabase('identity', storage);
  try {
    assert.deepEqual((await reopened.query('SELECT body FROM notes')).rows, [{ body: 'kept' }]);
    assert.equal(await setting(reopened, 'shared_buffers'), '16MB', 'an existing folder opens with the same setting');
  } finally {
    await reopened.close();
  }
});

// Issue 33: one initdb per process still made every fresh `npm start`, test process or command on a new folder pay
// 10-23 s. The cluster is now kept for the install (node_modules/.cache): a new folder in another process is a copy of it.
test('a new embedded folder in another process is a copy of the same cluster, not a new initdb', {
  timeout: 180_000,
}, async () => {
  const here = await openServiceDatabase('audit', storage);
  let id: string;
  try {
    id = await systemId(here);
  } finally {
    await here.close();
  }
  const script = `
    import { openServiceDatabase } from ${JSON.stringify(new URL('../../src/kit/service-config.ts', import.meta.url).href)};
    const db = await openServiceDatabase('audit', { dataDir: process.argv[1], databaseUrl: undefined, serviceDatabaseUrl: undefined });
    const r = await db.query('SELECT system_identifier::text AS id FROM pg_control_system()');
    await db.close();
    process.stdout.write(r.rows[0].id);
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, join(tmp.path, 'elsewhere')],
    { env: { ...process.env, LOG_LEVEL: 'silent' } },
  );
  assert.equal(stdout, id);
});
