import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.ts';
import { tempDir } from '../support/tmp.ts';

/**
 * Issue 23: `npm start & PLATFORM_PID=$!` … `kill $PLATFORM_PID` must stop the platform, not only npm. Under dash
 * (/bin/sh on Debian) npm's script shell forks `node src/cli.ts start` instead of replacing itself, so npm's SIGTERM
 * killed the shell and left the platform holding its ports. Run here in `sh -c` exactly as the README writes it (with
 * one service, on a free port, to be quick); the README's whole walk is test/docs/readme-walk.test.ts.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tmp = tempDir('npm-start-');
after(() => tmp.remove());

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function freedWithin(port: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await listening(port))) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return !(await listening(port));
}

/** Runs `script` in `sh -c` at the repository's root, as a person's shell with the machine's npm on PATH. */
async function sh(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const bin = join(ROOT, 'node_modules', '.bin');
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (/^(npm_|INIT_CWD$|NODE$)/.test(name)) delete base[name];
  const child = spawn('sh', ['-c', script], {
    cwd: ROOT,
    env: {
      ...base,
      PATH: (process.env.PATH ?? '')
        .split(delimiter)
        .filter((p) => p !== bin)
        .join(delimiter),
      LOG_LEVEL: 'warn',
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

const startAndWait = (port: number) => `npm start -- ingest & PLATFORM_PID=$!
until curl -sf localhost:${port}/ready >/dev/null; do
  kill -0 $PLATFORM_PID 2>/dev/null || exit 3; sleep 1
done
echo "platform pid $(cat "$DATA_DIR/ingest/platform.lock" | sed -E 's/.*"pid":([0-9]+).*/\\1/')"
`;

function platformPid(out: string): number {
  const m = /^platform pid (\d+)$/m.exec(out);
  assert.ok(m, `the platform's pid was printed:\n${out}`);
  return Number(m[1]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('kill of the npm that `npm start &` started stops the platform, under sh', { timeout: 300_000 }, async () => {
  const port = await freePort();
  const r = await sh(`${startAndWait(port)}kill $PLATFORM_PID; wait $PLATFORM_PID; echo "npm exited $?"`, {
    INGEST_PORT: String(port),
    DATA_DIR: join(tmp.path, 'term'),
  });
  const pid = platformPid(r.out);
  const freed = await freedWithin(port, 0);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  assert.equal(r.code, 0, r.out);
  assert.ok(freed, `the port is free once npm has exited:\n${r.out}`);
  assert.match(r.out, /^SIGTERM: stopping \(finishing requests in flight\)$/m, 'stopped cleanly, by the signal');
  assert.match(r.out, /^npm exited 0$/m);
});

test('a platform whose npm is killed outright (kill -9) stops by itself', { timeout: 300_000 }, async () => {
  const port = await freePort();
  const r = await sh(`${startAndWait(port)}kill -9 $PLATFORM_PID`, {
    INGEST_PORT: String(port),
    DATA_DIR: join(tmp.path, 'kill'),
  });
  const pid = platformPid(r.out);
  const freed = await freedWithin(port, 15_000);
  const until = Date.now() + 10_000;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  const gone = !alive(pid);
  if (!gone) process.kill(pid, 'SIGKILL');
  assert.ok(freed, `the port is freed:\n${r.out}`);
  assert.ok(gone, 'the platform process has exited');
});
