import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';
import { ControlError, controlSocketPath, sendCommand, serveCommands } from '../../src/kit/control.ts';
import { tempDir } from '../support/tmp.ts';

// The control socket alone (src/kit/control.ts), and what a command says when a data folder is held by a process
// that takes no commands. The platform running commands for real: test/platform/commands-while-running.test.ts.

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const tmp = tempDir();
const sleepers: ChildProcess[] = [];
after(() => {
  for (const s of sleepers) s.kill('SIGKILL');
  tmp.remove();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

/** Sends one raw line to the socket and answers what comes back. */
async function raw(path: string, line: string): Promise<string> {
  const socket = connect(path);
  await once(socket, 'connect');
  socket.end(line);
  let text = '';
  socket.on('data', (c: Buffer) => (text += c));
  await once(socket, 'close');
  return text;
}

test('a command sent to the socket runs there: its lines and exit code come back, with the caller’s folder', async () => {
  const folder = join(tmp.path, 'served');
  const seen: { args: string[]; cwd?: string }[] = [];
  const server = await serveCommands(folder, 'ingest', async (args, io) => {
    seen.push({ args, cwd: io.cwd });
    io.out("export PROJECT_ID='prj_1'");
    io.err('store this key now');
    return 3;
  });
  try {
    assert.equal(server.path, controlSocketPath(folder));
    assert.equal(statSync(join(folder, 'control')).mode & 0o777, 0o700, 'the socket’s folder is its owner’s only');
    assert.equal(statSync(server.path).mode & 0o777, 0o600, 'the socket is its owner’s only');
    const c = capture();
    const code = await sendCommand(folder, ['ingest', 'projects', 'create', 'Web shop', '--export'], c.io);
    assert.equal(code, 3);
    assert.deepEqual(c.out, ["export PROJECT_ID='prj_1'"]);
    assert.deepEqual(c.err, ['store this key now']);
    assert.deepEqual(seen, [{ args: ['projects', 'create', 'Web shop', '--export'], cwd: process.cwd() }]);

    const other = capture();
    assert.equal(await sendCommand(folder, ['identity', 'apps', 'list'], other.io), 2);
    assert.deepEqual(other.err, [
      "platform: this is the ingest service's control socket; it runs `platform ingest ...` only",
    ]);
    assert.equal(
      await raw(server.path, 'not json\n'),
      '{"err":"platform: the control socket takes one JSON line {\\"argv\\":[...],\\"cwd\\":\\"...\\"}"}\n{"exit":2}\n',
    );
    assert.match(await raw(server.path, '{"argv":["ingest",1],"cwd":"/"}\n'), /\{"exit":2\}\n$/);
    assert.equal(seen.length, 1, 'nothing malformed ran');
  } finally {
    await server.close();
  }
  const none = capture();
  assert.equal(await sendCommand(folder, ['ingest', 'projects', 'list'], none.io), undefined, 'closed: nobody answers');
});

test('long output in any script arrives whole; a platform that hangs up mid-command is one clear error', async () => {
  const folder = join(tmp.path, 'long');
  const line = 'é€😀'.repeat(50_000);
  const server = await serveCommands(folder, 'ingest', async (_args, io) => {
    io.out(line);
    return 0;
  });
  try {
    const c = capture();
    assert.equal(await sendCommand(folder, ['ingest', 'projects', 'list'], c.io), 0);
    assert.deepEqual(c.out, [line]);
  } finally {
    await server.close();
  }
  // Something on the socket that answers nothing and hangs up: a platform that died during the command.
  const dead = createServer((socket) => socket.destroy());
  mkdirSync(join(folder, 'control'), { recursive: true });
  dead.listen(controlSocketPath(folder));
  await once(dead, 'listening');
  try {
    await assert.rejects(
      sendCommand(folder, ['ingest', 'projects', 'list'], capture().io),
      (e: unknown) =>
        e instanceof ControlError &&
        e.message === 'the platform closed the control socket before the command ended (did it stop?)',
    );
  } finally {
    dead.close();
  }
});

test('a user other than the folder’s owner cannot connect to the socket', async (t) => {
  const folder = join(tmp.path, 'private');
  const server = await serveCommands(folder, 'ingest', async () => 0);
  try {
    // Root passes every permission check, so another user is needed: `nobody`. The script prints how its connection went.
    const script = `const s=require('net').connect(process.argv[1]);s.on('connect',()=>{console.log('connected');s.destroy()});s.on('error',e=>console.log(e.code))`;
    if (process.getuid!() !== 0) {
      t.diagnostic('not root: checked with this user’s modes only');
      assert.equal(statSync(server.path).mode & 0o077, 0);
      return;
    }
    // The tree above the data folder must let `nobody` reach the socket's folder, so that only its modes decide.
    for (let dir = tmp.path; dir !== '/'; dir = join(dir, '..')) spawnSync('chmod', ['o+x', dir]);
    spawnSync('chmod', ['o+rx', tmp.path, folder]);
    const asNobody = () =>
      spawnSync('/usr/bin/env', ['node', '-e', script, server.path], {
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin' },
      });
    const refused = asNobody();
    assert.equal(refused.stdout.trim(), 'EACCES', refused.stderr);
    // The socket's own mode holds too, should its folder be opened to others.
    chmodSync(join(folder, 'control'), 0o755);
    const stillRefused = asNobody();
    assert.equal(stillRefused.stdout.trim(), 'EACCES', stillRefused.stderr);
    const asRoot = spawnSync(process.execPath, ['-e', script, server.path], { encoding: 'utf8' });
    assert.equal(asRoot.stdout.trim(), 'connected', 'the same script as the owner connects');
  } finally {
    await server.close();
  }
});

/** A data folder held by a live process that takes no commands: `command` is what its lock says it runs. */
function heldFolder(name: string, command: string): { dataDir: string; folder: string; pid: number } {
  const dataDir = join(tmp.path, name);
  const folder = join(dataDir, 'ingest');
  mkdirSync(folder, { recursive: true });
  const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  sleepers.push(sleeper);
  writeFileSync(join(folder, 'platform.lock'), JSON.stringify({ pid: sleeper.pid, owner: 'ingest', command }));
  return { dataDir, folder, pid: sleeper.pid! };
}

function platform(args: string[], dataDir: string) {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, DATA_DIR: dataDir, PLATFORM_COMMAND_WAIT: '1' };
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 60_000 });
}

test('a folder held by a platform that takes no commands: the command says exactly what to do', () => {
  const { dataDir, folder, pid } = heldFolder('old-platform', 'start');
  const r = platform(['ingest', 'projects', 'list'], dataDir);
  assert.equal(r.status, 1);
  assert.equal(
    r.stderr,
    `platform: the data folder ${folder} is in use by process ${pid} (\`platform start\`, ingest); it took no command on ${folder}/control/platform.sock within 1 s (a platform started by an older version has no control socket): stop it (kill ${pid}), start it again, and run this command again\n`,
  );
  assert.equal(r.stdout, '');
});

test('a folder held by another command: this one waits for it, then says what to do', () => {
  const { dataDir, folder, pid } = heldFolder('other-command', 'ingest');
  const r = platform(['ingest', 'keys', 'create', 'prj_x'], dataDir);
  assert.equal(r.status, 1);
  assert.equal(
    r.stderr,
    `platform: the data folder ${folder} is in use by process ${pid} (\`platform ingest\`, ingest); it still held it after 1 s: wait for it to end, or stop it (kill ${pid}), then run this command again\n`,
  );
});

test('--help needs no data folder: it is answered here even while the folder is held', () => {
  const { dataDir } = heldFolder('help', 'start');
  const r = platform(['ingest', 'projects', 'create', '--help'], dataDir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: platform ingest projects create NAME \[--id ID\] \[--json\] \[--export\]/);
});
