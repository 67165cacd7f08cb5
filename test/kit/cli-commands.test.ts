import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { EXIT, UsageError, runCommand, type CommandGroup } from '../../src/kit/cli-runner.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const tmp = tempDir();
let database: FreshDatabase;

before(async () => {
  database = await freshPostgres('clicommands');
});
after(async () => {
  await database.drop();
  tmp.remove();
});

async function platform(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'silent',
      DATA_DIR: tmp.path,
      DATABASE_URL: database.url,
      PLATFORM_SECRET_KEY: 'f'.repeat(64),
      IDENTITY_EXTRA_SCOPES: 'reports:read',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [status] = await once(child, 'exit');
  return { status: status as number | null, stdout, stderr };
}

/** A group whose commands record what they were given, to check the runner alone. */
function group(seen: unknown[]): CommandGroup {
  return {
    name: 'demo',
    classify: (err) => (err instanceof RangeError ? new UsageError(err.message) : undefined),
    commands: [
      {
        path: ['things', 'make'],
        synopsis: 'NAME [--size N] [--loud]',
        summary: 'make a thing',
        details: ['--size   how big'],
        options: { size: { type: 'string' }, loud: { type: 'boolean' } },
        required: ['size'],
        positionals: { min: 1, max: 1 },
        async run({ values, positionals, result }) {
          seen.push({ values, positionals });
          if (positionals[0] === 'bad') throw new RangeError('bad is not a name');
          if (positionals[0] === 'boom') throw new Error('unexpected');
          result({ name: positionals[0], size: Number(values.size) }, [`made ${positionals[0]}`]);
        },
      },
    ],
  };
}

test('the runner: arguments parsed strictly, --json, per-command --help, one usage-error format, exit codes', async () => {
  const seen: unknown[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const run = async (...args: string[]) => {
    out.length = 0;
    err.length = 0;
    return runCommand(group(seen), args, io);
  };
  assert.equal(await run('things', 'make', 'cup', '--size', '3'), EXIT.ok);
  assert.deepEqual(out, ['made cup']);
  assert.equal(await run('things', 'make', 'cup', '--size', '3', '--json'), EXIT.ok);
  assert.deepEqual(JSON.parse(out.join('\n')), { name: 'cup', size: 3 });
  assert.equal(await run('things', 'make', '--help'), EXIT.ok);
  assert.match(out.join('\n'), /^usage: platform demo things make NAME \[--size N\] \[--loud\] \[--json\]$/m);
  assert.match(out.join('\n'), /--size {3}how big/);
  assert.equal(seen.length, 2, '--help runs nothing');

  for (const [args, problem] of [
    [['things', 'make', 'cup'], 'demo things make: --size is required'],
    [['things', 'make', '--size', '1'], 'demo things make: missing argument'],
    [['things', 'make', 'a', 'b', '--size', '1'], 'demo things make: unexpected argument "b"'],
    [['things', 'make', 'a', '--size', '1', '--colour', 'red'], "demo things make: Unknown option '--colour'"],
    [['things', 'make', 'bad', '--size', '1'], 'demo things make: bad is not a name'],
  ] as const) {
    assert.equal(await run(...args), EXIT.usage, args.join(' '));
    assert.equal(err.length, 1);
    const [first, second] = err[0]!.split('\n');
    assert.ok(first!.startsWith(`platform: ${problem}`), first);
    assert.equal(second, 'usage: platform demo things make NAME [--size N] [--loud] [--json]');
  }
  assert.equal(await run('nothing'), EXIT.usage);
  assert.match(err[0]!, /^platform: unknown command "demo nothing"\nusage: platform demo things make/);
  assert.equal(await run('--help'), EXIT.ok);
  assert.match(out.join('\n'), /things make NAME .* make a thing/);
  await assert.rejects(
    run('things', 'make', 'boom', '--size', '1'),
    /unexpected/,
    'a bug is not dressed up as a usage error',
  );
});

test("platform --version, a service command's --help without a database, and --json for scripts", async () => {
  const version = await platform('--version');
  assert.equal(version.status, 0);
  assert.equal(version.stdout, `platform ${VERSION}\n`);

  const help = await platform('identity', 'apps', 'create', '--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: platform identity apps create --name NAME/);
  assert.match(help.stdout, /--resource-server/);

  const missing = await platform('ingest', 'keys', 'create');
  assert.equal(missing.status, 2);
  assert.equal(
    missing.stderr,
    'platform: ingest keys create: missing argument\nusage: platform ingest keys create PROJECT [--name NAME] [--json] [--export]\n',
  );

  const app = await platform(
    'identity',
    'apps',
    'create',
    '--name',
    'Reports',
    '--type',
    'machine',
    '--scope',
    'reports:read',
    '--json',
  );
  assert.equal(app.status, 0, app.stderr);
  const made = JSON.parse(app.stdout) as { client_id: string; client_secret: string; scopes: string[] };
  assert.match(made.client_id, /\S/);
  assert.match(made.client_secret, /\S{20,}/);
  assert.deepEqual(made.scopes, ['reports:read']);

  const project = await platform('ingest', 'projects', 'create', 'Web shop', '--id', 'shop', '--json');
  assert.equal(project.status, 0, project.stderr);
  assert.equal((JSON.parse(project.stdout) as { id: string }).id, 'shop');
  const key = await platform('ingest', 'keys', 'create', 'shop', '--json');
  assert.equal(key.status, 0, key.stderr);
  assert.match((JSON.parse(key.stdout) as { key: string }).key, /^isk_/);
  assert.equal(key.stderr, '', 'nothing but the JSON document');

  const again = await platform('ingest', 'projects', 'create', 'Web shop', '--id', 'shop');
  assert.equal(again.status, 1);
  assert.match(again.stderr, /^platform ingest projects create: /);
  const migrated = await platform('migrate', 'ingest', '--json');
  assert.equal(migrated.status, 0, migrated.stderr);
  assert.deepEqual(JSON.parse(migrated.stdout), { applied: { ingest: [] } });
});
