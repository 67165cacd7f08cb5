/**
 * Where the seconds of a fresh embedded start go (issue 33): the steps `platform start` takes for its four databases
 * (src/kit/db.ts, src/kit/pglite-cluster.ts, src/kit/migrations.ts), one after the other in this process, each timed
 * with the process's RSS after it. `npm run bench:start` times the whole start; what it measures beyond these steps
 * is npm, Node, the services' code and their listening.
 *
 *   node bench/start-profile.ts
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/kit/db.ts';
import { migrate } from '../src/kit/migrations.ts';
import { seedCluster } from '../src/kit/pglite-cluster.ts';

const SERVICES = ['identity', 'dashboard', 'audit', 'ingest'];
const root = await mkdtemp(join(tmpdir(), 'start-profile-'));
const folder = (s: string) => join(root, s);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
// From the start of the process: the first step is Node and the imports.
let last = 0;
const step = (label: string) => {
  const now = performance.now();
  const rss = Math.round(process.memoryUsage().rss / 1048576);
  console.log(`| ${label} | ${((now - last) / 1000).toFixed(2)} s | ${rss} MB |`);
  last = now;
};

console.log(`load average before: ${load()}`);
console.log('| step | time | RSS after |\n|---|---|---|');
step('Node and the kit loaded');
await seedCluster(folder(SERVICES[0]!));
step('initdb of the one cluster (compiles PGlite), copied to the first folder');
for (const s of SERVICES.slice(1)) await seedCluster(folder(s));
step('the cluster copied to the other three folders');
const dbs = await Promise.all(SERVICES.map((s) => openDatabase({ dataDir: folder(s), schema: s })));
step('the four folders opened at once');
for (const [i, s] of SERVICES.entries()) {
  await migrate(dbs[i]!, new URL(`../src/${s}/migrations/`, import.meta.url));
  step(`${s}'s migrations applied`);
}
await Promise.all(dbs.map((d) => d.close()));
step('the four closed');
const again = await Promise.all(SERVICES.map((s) => openDatabase({ dataDir: folder(s), schema: s })));
step('the four opened again (compiled WebAssembly cached in the process)');
await Promise.all(again.map((d) => d.close()));
rmSync(root, { recursive: true, force: true });
console.log(`load average after: ${load()}`);
