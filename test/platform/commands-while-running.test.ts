import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { tempDir } from '../support/tmp.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';

/**
 * Issue 23: on embedded storage, `npx platform <service> ...` while `platform start` runs. The four services run in one
 * process on a fresh DATA_DIR, as `npm start` runs them; each service's create commands are run through the CLI, in
 * other processes, and what they made is used through the services' APIs. `--json` and `--export` print what the
 * same command prints on a folder no platform holds.
 */

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const tmp = tempDir('commands-running-');
const DATA = join(tmp.path, 'data');
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const SECRET_KEY = randomBytes(32).toString('hex');
let platformProcess: ServiceProcess;
let urls: Record<string, string>;

before(async () => {
  platformProcess = await startServiceProcess(
    ['identity', 'dashboard', 'audit', 'ingest'],
    {
      DATA_DIR: DATA,
      PLATFORM_SECRET_KEY: SECRET_KEY,
      IDENTITY_EXTRA_SCOPES: 'reports:read',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    },
    300_000,
  );
  urls = platformProcess.urls;
});

after(async () => {
  await platformProcess?.stop();
  tmp.remove();
});

async function platform(
  args: string[],
  options: { dataDir?: string; cwd?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, DATA_DIR: options.dataDir ?? DATA, PLATFORM_SECRET_KEY: SECRET_KEY },
    cwd: options.cwd ?? tmp.path,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const [status] = await once(child, 'exit');
  return { status: status as number | null, stdout, stderr };
}

/** `export NAME='value'` lines as an object, every line checked to be one. */
function exported(stdout: string): Record<string, string> {
  const lines = stdout.trim().split('\n');
  const vars: Record<string, string> = {};
  for (const line of lines) {
    const m = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
    assert.ok(m, `an export line: ${line}`);
    vars[m[1]!] = m[2]!;
  }
  return vars;
}

/** The shape of a JSON document: its keys, recursively, with the type of each leaf. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  return value === null ? 'null' : typeof value;
}

test('identity: an app made by the CLI while the platform runs gets tokens at once', async () => {
  const r = await platform([
    'identity',
    'apps',
    'create',
    '--name',
    'Reports backend',
    '--type',
    'machine',
    '--scope',
    'reports:read',
    '--export',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const app = exported(r.stdout);
  assert.match(app.CLIENT_ID!, /^app_/);
  assert.match(app.CLIENT_SECRET!, /^cs_/);
  const token = await fetch(`${urls.identity}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.CLIENT_ID}:${app.CLIENT_SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=reports%3Aread',
  });
  assert.equal(token.status, 200);
  assert.equal(((await token.json()) as { scope: string }).scope, 'reports:read');
});

test('ingest: a project and a key made by the CLI take events; --json and --export are those of a local run', async () => {
  const project = await platform(['ingest', 'projects', 'create', 'Web shop', '--json']);
  assert.equal(project.status, 0, project.stderr);
  const created = JSON.parse(project.stdout) as { id: string; name: string };
  assert.equal(created.name, 'Web shop');
  const key = await platform(['ingest', 'keys', 'create', created.id, '--export']);
  assert.equal(key.status, 0, key.stderr);
  const vars = exported(key.stdout);
  assert.deepEqual(Object.keys(vars), ['KEY_ID', 'API_KEY']);
  assert.match(vars.API_KEY!, /^isk_/);

  const events = await fetch(`${urls.ingest}/v1/events`, {
    method: 'POST',
    headers: { 'x-svc-api-key': vars.API_KEY!, 'content-type': 'application/json' },
    body: JSON.stringify({
      events: [
        {
          event_id: 'e1',
          project_id: created.id,
          'session.id': 's1',
          'event.type': 'page.view',
          'event.timestamp': '2026-11-21T10:00:00Z',
        },
      ],
    }),
  });
  assert.equal(events.status, 202);
  assert.deepEqual(await events.json(), { accepted: 1, rejected: 0, errors: [] });
  const listed = await fetch(`${urls.ingest}/api/v1/projects`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.deepEqual(
    ((await listed.json()) as { items: { id: string }[] }).items.map((p) => p.id),
    [created.id],
  );

  // The same commands on a folder that no platform holds run here, on their own database: the same output.
  const alone = join(tmp.path, 'alone');
  const localProject = await platform(['ingest', 'projects', 'create', 'Web shop', '--json'], { dataDir: alone });
  assert.equal(localProject.status, 0, localProject.stderr);
  assert.deepEqual(shape(JSON.parse(localProject.stdout)), shape(created));
  const localKey = await platform(['ingest', 'keys', 'create', JSON.parse(localProject.stdout).id, '--export'], {
    dataDir: alone,
  });
  assert.deepEqual(Object.keys(exported(localKey.stdout)), Object.keys(vars));
  assert.equal(localKey.stderr, key.stderr, 'the same lines on stderr');
});

test('dashboard: a tenant, its owner and a token made by the CLI open the API', async () => {
  const tenant = await platform([
    'dashboard',
    'tenants',
    'create',
    '--slug',
    'acme',
    '--name',
    'Acme',
    '--plan',
    'pro',
  ]);
  assert.equal(tenant.status, 0, tenant.stderr);
  assert.match(tenant.stdout, /^tenant \d+ acme \(pro\)$/m);
  const user = await platform([
    'dashboard',
    'users',
    'create',
    '--tenant',
    'acme',
    '--email',
    'ann@acme.example',
    '--name',
    'Ann',
    '--role',
    'owner',
  ]);
  assert.equal(user.status, 0, user.stderr);
  const token = await platform(['dashboard', 'token', '--tenant', 'acme', '--email', 'ann@acme.example', '--export']);
  assert.equal(token.status, 0, token.stderr);
  const vars = exported(token.stdout);
  const list = await fetch(`${urls.dashboard}/api/v1/dashboards`, {
    headers: { authorization: `Bearer ${vars.DASHBOARD_TOKEN}` },
  });
  assert.equal(list.status, 200);
});

test('audit: a key made by the CLI opens the audit API', async () => {
  const r = await platform(['audit', 'keys', 'create', '--name', 'ci', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const created = JSON.parse(r.stdout) as { key: string };
  const audits = await fetch(`${urls.audit}/api/v1/audits`, { headers: { authorization: `Bearer ${created.key}` } });
  assert.equal(audits.status, 200);
  assert.deepEqual(await audits.json(), { items: [], next: null });
});

test('failures and usage errors come back as a local run prints them, with their exit codes', async () => {
  const missing = await platform(['ingest', 'keys', 'create', 'prj_nosuch']);
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, 'platform ingest keys create: no project prj_nosuch\n');
  const usage = await platform(['ingest', 'projects', 'create']);
  assert.equal(usage.status, 2);
  assert.equal(
    usage.stderr,
    'platform: ingest projects create: missing argument\nusage: platform ingest projects create NAME [--id ID] [--json] [--export]\n',
  );
});

test('a path given to a command is read from the folder the command was typed in', async () => {
  const here = join(tmp.path, 'elsewhere');
  mkdirSync(join(here, 'provisioning'), { recursive: true });
  const r = await platform(['dashboard', 'provision', '--no-platform', '--dir', 'provisioning'], { cwd: here });
  assert.equal(r.status, 1);
  assert.equal(
    r.stderr,
    `platform dashboard provision: no .yaml, .yml or .json file in ${join(here, 'provisioning')}\n`,
  );
});

test('migrate and a second start are refused while the platform runs, with what to do', async () => {
  const migrate = await platform(['migrate', 'ingest']);
  assert.equal(migrate.status, 1);
  assert.match(
    migrate.stderr,
    /^platform: the data folder \S+\/data\/ingest is in use by process \d+ \(`platform start`, ingest\); the running platform applied ingest's migrations when it started; migrate runs while the platform is stopped\n$/,
  );
  const start = await platform(['start', 'ingest']);
  assert.equal(start.status, 1);
  assert.match(
    start.stderr,
    /^platform: ingest: the data folder \S+\/data\/ingest is in use by process \d+ \(`platform start`, ingest\); the platform is already running; stop it first, or use it as it is\n$/,
  );
  assert.equal((await fetch(`${urls.ingest}/ready`)).status, 200, 'the running platform is unharmed');
});

test('the socket is its owner’s only, the platform logs each command, and a stop removes the socket', async () => {
  const socket = join(DATA, 'ingest', 'control', 'platform.sock');
  assert.equal(statSync(join(DATA, 'ingest', 'control')).mode & 0o777, 0o700);
  assert.equal(statSync(socket).mode & 0o777, 0o600);
  assert.match(
    platformProcess.stdout(),
    /"service":"ingest","command":"projects create","exit":0,"msg":"ran a command from the control socket"/,
  );
  assert.doesNotMatch(platformProcess.stdout(), /Web shop/, 'arguments are not logged');
  assert.equal(await platformProcess.stop(), 0);
  for (const s of ['identity', 'dashboard', 'audit', 'ingest']) {
    assert.equal(existsSync(join(DATA, s, 'control', 'platform.sock')), false, `${s}'s socket is gone`);
    assert.equal(existsSync(join(DATA, s, 'platform.lock')), false, `${s}'s lock is released`);
  }
  const after = await platform(['ingest', 'projects', 'list', '--json']);
  assert.equal(after.status, 0, after.stderr);
  assert.equal((JSON.parse(after.stdout) as { items: unknown[] }).items.length, 1, 'stopped: run here, same data');
});
