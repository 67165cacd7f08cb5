import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { dashboardCommand } from '../../src/dashboard/cli.ts';
import { loadDashboardConfig } from '../../src/dashboard/config.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const tmp = tempDir('dash-provision-cli-');
after(() => tmp.remove());

/** `npx platform ...` as on a fresh clone: no database variable, embedded storage under the clone's ./data. */
function platform(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: join(tmp.path, 'data') };
  for (const name of Object.keys(env))
    if (name.endsWith('DATABASE_URL') || name.startsWith('DASHBOARD_')) delete env[name];
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', cwd: tmp.path, timeout: 180_000 });
}

const STEPS = [
  'platform dashboard provision: no tenant exists yet, so the platform data and files without `tenant` have nowhere to go. Make the first owner, then run `npx platform dashboard provision` again:',
  '  - in the web app: `npm start`, open http://localhost:4001/ and fill in the first-run form',
  '  - or from this shell, while the platform is stopped: `npx platform dashboard tenants create --slug acme --name Acme`, then `npx platform dashboard users create --tenant acme --email you@example.com --name "Your Name" --role owner`.',
];

test('provision on a fresh clone says what to do first: make the first owner (and, on embedded storage, use PostgreSQL)', () => {
  const r = platform(['dashboard', 'provision']);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.deepEqual(r.stderr.trimEnd().split('\n'), [
    STEPS[0],
    `${STEPS[1]};`,
    STEPS[2],
    'The platform data also needs the services on PostgreSQL: set DATABASE_URL (now the ingest and audit services keep their data in embedded storage, which only their own process can open).',
  ]);
  // The steps it names work, and the command then gets past the missing tenant to what embedded storage lacks.
  assert.equal(platform(['dashboard', 'tenants', 'create', '--slug', 'acme', '--name', 'Acme']).status, 0);
  const owner = platform([
    'dashboard',
    'users',
    'create',
    '--tenant',
    'acme',
    '--email',
    'you@example.com',
    '--name',
    'Your Name',
    '--role',
    'owner',
  ]);
  assert.equal(owner.status, 0, owner.stderr);
  const again = platform(['dashboard', 'provision']);
  assert.equal(again.status, 1);
  assert.match(
    again.stderr,
    /^platform dashboard provision: the platform data is not available: platform-events: the ingest service keeps its data in embedded storage/,
  );
});

test('with DATABASE_URL and no tenant yet, the steps are the same and the web app adds the platform data itself', async () => {
  const db = await freshPostgres('dashprovcli');
  try {
    const config = loadDashboardConfig({
      DATABASE_URL: db.url,
      DATA_DIR: join(tmp.path, 'pg-data'),
      LOG_LEVEL: 'silent',
      DASHBOARD_PUBLIC_URL: 'https://dash.example.com/',
    });
    const err: string[] = [];
    const code = await dashboardCommand(['provision'], config, { out: () => {}, err: (l) => err.push(l) });
    assert.equal(code, 1);
    assert.deepEqual(err.join('\n').split('\n'), [
      STEPS[0],
      `${STEPS[1].replace('http://localhost:4001/', 'https://dash.example.com/')} (it adds the platform data itself, unless DASHBOARD_PLATFORM_DATA=false);`,
      STEPS[2],
    ]);
  } finally {
    await db.drop();
  }
});
