/**
 * Audit benchmark: a generated 50-page site of varied size served on 127.0.0.1, audited in one run by
 * (1) this service — `platform start audit` in its own process on real PostgreSQL, one crawl job through
 * the API — and (2) pa11y-ci with its axe runner at its default concurrency, on the same Chromium.
 * Prints pages per minute and CPU time per page of each, the ratios, and the peak memory of each tool with
 * its browser.
 *
 *   npm run bench:audit        (BENCH_PAGES=50 BENCH_POSTGRES_URL=postgres://... CHROMIUM_PATH=...
 *                               BENCH_PA11Y=0 to measure the service alone; BENCH_DEEP=1 for the deep audit;
 *                               BENCH_RESULT_FILE=path writes the service's result there; AUDIT_* settings reach the service)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, findChromium } from '../src/kit/browser.ts';
import { scratchDatabase } from './support/scratch-database.ts';
import { serveSite } from './support/audit-site.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const PAGES = Number(process.env.BENCH_PAGES ?? 50);

// ---------------------------------------------------------------------------------------------------------
// Memory of a process and its descendants (the browser's processes are children of the tool's process).

function children(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  return byParent;
}

function tree(root: number): number[] {
  const byParent = children();
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(byParent.get(pid) ?? []));
  }
  return out;
}

/**
 * Resident memory of a process tree now: RSS summed (counts shared pages once per process) and PSS summed (shares
 * them out), and the PSS by kind of process (what to cut first).
 */
function treeMemoryMb(root: number): {
  rss: number;
  pss: number;
  anon: number;
  processes: number;
  pssByKind: Map<string, number>;
} {
  let rss = 0;
  let pss = 0;
  let anon = 0;
  const pssByKind = new Map<string, number>();
  const pids = tree(root);
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      const own = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      anon += Number(/^Pss_Anon:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      pss += own;
      const kind = processKind(pid);
      if (kind) pssByKind.set(kind, (pssByKind.get(kind) ?? 0) + own / 1024);
    } catch {
      // exited meanwhile
    }
  }
  return { rss: rss / 1024, pss: pss / 1024, anon: anon / 1024, processes: pids.length, pssByKind };
}

/** What a process is: its name, and Chromium's `--type` for a browser's child; null once it has exited. */
function processKind(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
    const name = stat.slice(stat.indexOf('(') + 1, stat.indexOf(') '));
    return type ? `${name} ${type}` : name;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used, in seconds, and what it is; null once it has exited. */
function cpuSeconds(pid: number): { cpu: number; kind: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.split(') ')[1]!.split(' ');
    const kind = processKind(pid);
    if (kind === null) return null;
    return { cpu: (Number(fields[11]) + Number(fields[12])) / 100, kind }; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/**
 * Samples a process tree every 200 ms until stopped: the peaks of its memory, and the CPU time its processes
 * used meanwhile (each process's last sample counts, so a renderer that exits keeps what it used; at most
 * its last 200 ms are missed). CPU time per page hardly depends on how busy the machine is, pages per
 * minute do: on a shared machine it is the fairer comparison.
 */
function treeSampler(root: number) {
  const peak = { rss: 0, pss: 0, anon: 0, processes: 0 };
  let pssByKindAtPeak = new Map<string, number>();
  const cpuAtStart = new Map<number, number>();
  const cpuLast = new Map<number, number>();
  const kinds = new Map<number, string>();
  let first = true;
  const sample = () => {
    const m = treeMemoryMb(root);
    peak.rss = Math.max(peak.rss, m.rss);
    if (m.pss > peak.pss) pssByKindAtPeak = m.pssByKind;
    peak.pss = Math.max(peak.pss, m.pss);
    peak.anon = Math.max(peak.anon, m.anon);
    peak.processes = Math.max(peak.processes, m.processes);
    for (const pid of tree(root)) {
      const seen = cpuSeconds(pid);
      if (seen === null) continue;
      if (!cpuAtStart.has(pid)) cpuAtStart.set(pid, first ? seen.cpu : 0);
      cpuLast.set(pid, seen.cpu);
      kinds.set(pid, seen.kind);
    }
    first = false;
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      let cpu = 0;
      const byKind = new Map<string, number>();
      for (const [pid, last] of cpuLast) {
        const used = last - cpuAtStart.get(pid)!;
        cpu += used;
        byKind.set(kinds.get(pid)!, (byKind.get(kinds.get(pid)!) ?? 0) + used);
      }
      const cpuByKind = [...byKind]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(', ');
      const pssByKind = [...pssByKindAtPeak]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(0)} MB`)
        .join(', ');
      return { ...peak, cpu, cpuByKind, pssByKind };
    },
  };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

// ---------------------------------------------------------------------------------------------------------

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // 'close', not 'exit': the pipes may still hold output when the process has exited.
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Node's options of `npm start` (package.json's start script, `exec node <options> src/cli.ts start`): the service runs as it does there. */
function startOptions(): string[] {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const words = script.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('src/cli.ts'));
}

function startService(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [...startOptions(), 'src/cli.ts', 'start', 'audit'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /audit\s+(http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => reject(new Error(`platform start audit exited with ${code}: ${err}`)));
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

interface Measured {
  pages: number;
  seconds: number;
  peak: {
    rss: number;
    pss: number;
    anon: number;
    processes: number;
    cpu: number;
    cpuByKind: string;
    pssByKind: string;
  };
  issues: number;
  loadBefore: string;
}

async function auditWithService(site: { origin: string }, env: NodeJS.ProcessEnv): Promise<Measured> {
  const key = await run(['src/cli.ts', 'audit', 'keys', 'create', '--name', 'bench'], env);
  if (key.code !== 0) throw new Error(`platform audit keys create failed: ${key.err}`);
  const apiKey = key.out.trim().split('\n').pop()!;
  const { child, url } = await startService(env);
  try {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const loadBefore = loadAverage();
    const sampler = treeSampler(child.pid!);
    const t0 = performance.now();
    const created = await fetch(`${url}/api/v1/audits`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: `${site.origin}/`,
        config: {
          version: '2.2',
          level: 'AA',
          crawl: { enabled: true, depth: 1, maxPages: PAGES },
          // BENCH_DEEP=1: the deep audit, the browser checks after axe on every page.
          ...(process.env.BENCH_DEEP === '1' ? { deep: true } : {}),
        },
      }),
    });
    if (created.status !== 202)
      throw new Error(`POST /api/v1/audits answered ${created.status}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    let job: {
      status: string;
      error: string | null;
      result?: {
        pages: { status: string; durationMs: number }[];
        stats: { totalFindings: number; needsReview: number };
      };
    };
    for (;;) {
      job = (await (await fetch(`${url}/api/v1/audits/${id}`, { headers })).json()) as typeof job;
      if (['completed', 'failed', 'cancelled'].includes(job.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    const peak = sampler.stop();
    if (job.status !== 'completed' || !job.result) throw new Error(`the audit ended ${job.status}: ${job.error}`);
    // BENCH_RESULT_FILE: the service's result as it answered it, to compare two trees' findings (they must not change).
    if (process.env.BENCH_RESULT_FILE)
      writeFileSync(process.env.BENCH_RESULT_FILE, JSON.stringify(job.result, null, 1));
    const audited = job.result.pages.filter((p) => p.status === 'audited');
    const durations = audited.map((p) => p.durationMs).sort((x, y) => x - y);
    console.log(
      `service page times     median ${durations[Math.floor(durations.length / 2)]} ms, slowest ${durations[durations.length - 1]} ms (navigation to axe's answer, per page)`,
    );
    return { pages: audited.length, seconds, peak, issues: job.result.stats.totalFindings, loadBefore };
  } finally {
    await stopChild(child);
  }
}

async function auditWithPa11yCi(urls: string[], chromium: string, concurrency: number | undefined): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pa11y-'));
  try {
    const config = join(dir, 'pa11y-ci.json');
    // A file, not stdout: pa11y-ci exits right after writing, which cuts a large report sent through a pipe.
    const reportFile = join(dir, 'report.json');
    writeFileSync(
      config,
      JSON.stringify({
        defaults: {
          runners: ['axe'],
          standard: 'WCAG2AA',
          timeout: 60_000,
          chromeLaunchConfig: { executablePath: chromium, args: CHROMIUM_ARGS },
          ...(concurrency ? { concurrency } : {}),
          // pa11y-ci reads its reporters from `defaults`.
          reporters: [['json', { fileName: reportFile }]],
        },
        urls,
      }),
    );
    const loadBefore = loadAverage();
    const t0 = performance.now();
    const child = spawn(NODE, ['node_modules/pa11y-ci/bin/pa11y-ci.js', '--config', config], {
      cwd: ROOT,
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: 'true', PUPPETEER_EXECUTABLE_PATH: chromium },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const sampler = treeSampler(child.pid!);
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const seconds = (performance.now() - t0) / 1000;
    const peak = sampler.stop();
    // pa11y-ci exits 2 when pages have issues, which they do.
    if (code !== 0 && code !== 2) throw new Error(`pa11y-ci exited with ${code}: ${err.slice(0, 2000)}`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
      total: number;
      passes: number;
      errors: number;
      results: Record<string, unknown[]>;
    };
    const failedPages = Object.values(report.results).filter((r) =>
      r.some((i) => (i as { message?: string }).message && !(i as { type?: string }).type),
    ).length;
    if (failedPages > 0) throw new Error(`pa11y-ci could not test ${failedPages} pages`);
    return { pages: report.total, seconds, peak, issues: report.errors, loadBefore };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(name: string, m: Measured): { perMinute: number; cpuPerPage: number } {
  const perMinute = (m.pages / m.seconds) * 60;
  const cpuPerPage = m.peak.cpu / m.pages;
  console.log(
    `${name.padEnd(22)} ${m.pages} pages in ${m.seconds.toFixed(1)} s = ${perMinute.toFixed(1)} pages/min; CPU ${m.peak.cpu.toFixed(1)} s = ${cpuPerPage.toFixed(2)} s per page; ` +
      `peak memory with its browser: PSS ${m.peak.pss.toFixed(0)} MB, RSS ${m.peak.rss.toFixed(0)} MB (${m.peak.processes} processes); ${m.issues} issues; load average before ${m.loadBefore}`,
  );
  console.log(`${''.padEnd(22)} CPU by process: ${m.peak.cpuByKind}`);
  console.log(`${''.padEnd(22)} PSS by process at the peak: ${m.peak.pssByKind}`);
  // The binaries' and libraries' pages are shared with every other copy of Node and Chromium on the machine, so PSS
  // moves with what else runs; anonymous memory (heaps, buffers) is the tool's own, whatever runs beside it.
  console.log(`${''.padEnd(22)} peak anonymous memory (PSS of heaps and buffers): ${m.peak.anon.toFixed(0)} MB`);
  return { perMinute, cpuPerPage };
}

async function main(): Promise<void> {
  const chromium = await findChromium();
  const db = await scratchDatabase('bench_audit');
  const dbName = db.name;
  const site = await serveSite(PAGES);
  try {
    const kb = site.bytes.map((b) => b / 1024);
    console.log(
      `audit benchmark: ${site.urls.length} pages of ${Math.min(...kb).toFixed(0)}–${Math.max(...kb).toFixed(0)} KB (${(kb.reduce((a, b) => a + b, 0) / kb.length).toFixed(0)} KB average) on ${site.origin}; ${chromium}`,
    );
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      DATA_DIR: `/tmp/${dbName}`,
      AUDIT_PORT: '0',
      AUDIT_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CHROMIUM_PATH: chromium,
    };
    const a = line('service (1 crawl job)', await auditWithService(site, env));
    // BENCH_PA11Y=0 measures the service alone (for trying its settings, e.g. AUDIT_PAGE_CONCURRENCY).
    if (process.env.BENCH_PA11Y !== '0') {
      const b = line('pa11y-ci (default)', await auditWithPa11yCi(site.urls, chromium, undefined));
      console.log(
        `ratio                  service / pa11y-ci = ${(a.perMinute / b.perMinute).toFixed(2)}x pages per minute (targets: ≥ 4x, issue 33; ≥ 2.5x, issue 29); ${(b.cpuPerPage / a.cpuPerPage).toFixed(2)}x pages per CPU-second`,
      );
    }
    if (process.env.BENCH_PA11Y_CONCURRENCY) {
      const c = line(
        `pa11y-ci (conc. ${process.env.BENCH_PA11Y_CONCURRENCY})`,
        await auditWithPa11yCi(site.urls, chromium, Number(process.env.BENCH_PA11Y_CONCURRENCY)),
      );
      console.log(
        `ratio                  service / pa11y-ci at concurrency ${process.env.BENCH_PA11Y_CONCURRENCY} = ${(a.perMinute / c.perMinute).toFixed(2)}x pages per minute; ${(c.cpuPerPage / a.cpuPerPage).toFixed(2)}x pages per CPU-second`,
      );
    }
    console.log(`load average after     ${loadAverage()}`);
  } finally {
    await site.close();
    await db.drop();
    rmSync(`/tmp/${dbName}`, { recursive: true, force: true });
  }
}

await main();
