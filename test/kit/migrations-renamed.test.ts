import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const tmp = tempDir();
const pgdb = await freshPostgres('kitrenamed');
after(async () => {
  await pgdb.drop();
  tmp.remove();
});

function dir(name: string, files: Record<string, string>): string {
  const d = join(tmp.path, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return `${d}/`;
}

test('renamed.json rewrites recorded names, so renumbered migrations are not applied again; new ones still are', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'renamed', poolSize: 2 });
  try {
    const create = 'CREATE TABLE t (id int PRIMARY KEY);';
    const add = 'ALTER TABLE t ADD COLUMN name text;';
    assert.deepEqual((await migrate(db, dir('old', { '001_t.sql': create, '100_name.sql': add }))).applied, [
      '001_t.sql',
      '100_name.sql',
    ]);
    const renumbered = dir('new', {
      '001_t.sql': create,
      '002_name.sql': add,
      '003_more.sql': 'ALTER TABLE t ADD COLUMN more int;',
      'renamed.json': JSON.stringify({ '100_name.sql': '002_name.sql' }),
    });
    assert.deepEqual((await migrate(db, renumbered)).applied, ['003_more.sql']);
    assert.deepEqual((await migrate(db, renumbered)).applied, []);
    const names = (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map(
      (r) => r.name,
    );
    assert.deepEqual(names, ['001_t.sql', '002_name.sql', '003_more.sql']);
  } finally {
    await db.close();
  }
});
