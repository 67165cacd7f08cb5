/**
 * `npm start` as a new user meets it (issue 23): the four services on embedded storage in fresh data folders, started
 * by npm from the repository's root, timed until all four answer `GET /ready`; then the platform process's RSS (now
 * and its peak, VmHWM), a second start on the same folders (the databases exist by then), and the stop: `kill` of npm,
 * as the README does, timed until the ports are free. Uses the default ports 4000-4003, which must be free.
 *
 * A fresh clone's `npm install` makes the fresh cluster new databases are copied from, and one per service with its
 * migrations applied (issue 33, src/kit/pglite-templates.ts). Each run removes them first and times their making as
 * `npm install` does it, then starts on fresh folders as after that install; then once more on other fresh folders
 * after removing them again, as after an install that ran no scripts (`--ignore-scripts`: the start makes the fresh
 * cluster, applies every migration and compiles the code with no compile cache).
 *
 *   npm run bench:start            (BENCH_RUNS=2: each run on new folders)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installClusters } from '../src/kit/pglite-cluster.ts';
import { warmCompileCache } from '../scripts/warm-compile-cache.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PORTS = [4000, 4001, 4002, 4003];
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const TIMEOUT_MS = 300_000;

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

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200;
  } catch {
    return false;
  }
}

/** VmRSS and VmHWM of a process, in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** The platform process npm runs: npm's child (the script's shell replaced itself with it, `exec`). */
function platformPid(npm: ChildProcess): number {
  const children = readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8').trim().split(/\s+/);
  const pid = Number(children[0]);
  if (!pid) throw new Error('npm has no child process');
  return pid;
}

interface Measured {
  readyMs: number;
  rss: number;
  peak: number;
  stopMs: number;
}

async function startOnce(dataDir: string, compileCache: string): Promise<Measured> {
  const busy = [];
  for (const p of PORTS) if (await listening(p)) busy.push(p);
  if (busy.length) throw new Error(`ports in use: ${busy.join(', ')}; stop what holds them`);
  const started = performance.now();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_COMPILE_CACHE: compileCache },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(npm, 'exit');
  const waiting = new Set(PORTS);
  while (waiting.size) {
    if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}) before every service was ready`);
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`not ready within ${TIMEOUT_MS} ms`);
    for (const p of [...waiting]) if (await ready(p)) waiting.delete(p);
    if (waiting.size) await new Promise((r) => setTimeout(r, 100));
  }
  const readyMs = performance.now() - started;
  const { rss, peak } = memory(platformPid(npm));
  const stopping = performance.now();
  npm.kill('SIGTERM');
  await exited;
  for (const p of PORTS) if (await listening(p)) throw new Error(`port ${p} still in use after npm exited`);
  return { readyMs, rss, peak, stopMs: performance.now() - stopping };
}

const row = (label: string, m: Measured) =>
  `| ${label} | ${(m.readyMs / 1000).toFixed(1)} s | ${m.rss} MB | ${m.peak} MB | ${(m.stopMs / 1000).toFixed(1)} s |`;

console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log('| start | all four ready | RSS when ready | peak RSS | stop (kill npm → ports free) |');
console.log('|---|---|---|---|---|');
const removeInstallClusters = () => {
  for (const dir of installClusters()) rmSync(dir, { recursive: true, force: true });
};

/** Removes the install's clusters, then makes them and fills `compileCache` as `npm install` does; the seconds it took. */
function installCluster(compileCache: string): number {
  removeInstallClusters();
  const started = performance.now();
  const script = `
    import { prepareInstallClusters } from ${JSON.stringify(new URL('../src/kit/pglite-templates.ts', import.meta.url).href)};
    import { services } from ${JSON.stringify(new URL('../src/services.ts', import.meta.url).href)};
    await prepareInstallClusters(services.map((s) => ({ schema: s.name, migrations: s.migrations })));`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  warmCompileCache({ ...process.env, NODE_COMPILE_CACHE: compileCache });
  return (performance.now() - started) / 1000;
}

for (let run = 1; run <= RUNS; run++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  for (const folder of ['a', 'b']) mkdirSync(join(dataDir, folder));
  // Each install's own compile cache (Node's, src/kit/compile-cache.ts); an install without scripts starts with none.
  const cache = (name: string) => join(dataDir, `compile-cache-${name}`);
  try {
    console.log(`| run ${run}: npm install makes the clusters | ${installCluster(cache('a')).toFixed(1)} s | | | |`);
    console.log(row(`run ${run}, fresh folders`, await startOnce(join(dataDir, 'a'), cache('a'))));
    console.log(row(`run ${run}, same folders again`, await startOnce(join(dataDir, 'a'), cache('a'))));
    removeInstallClusters();
    console.log(
      row(`run ${run}, fresh folders, no cluster from the install`, await startOnce(join(dataDir, 'b'), cache('b'))),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
