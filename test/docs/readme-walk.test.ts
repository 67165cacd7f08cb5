import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/tmp.ts';

/**
 * The README's "Try it", pasted the way a person pastes it: every ```sh block of the section, in order, into one
 * shell, as written (the platform on its default ports 4000-4003, embedded storage, the repository's npm scripts),
 * then stopped the way the README says; after which nothing may listen on the ports any more. Run in `sh` (dash on
 * Debian, which forks the commands of npm's scripts) and in bash. What the README leaves to the reader is given in
 * the environment: a fresh DATA_DIR, and for the audit block a local site with AUDIT_ALLOW_HOSTS and SITE, as the
 * README tells. node_modules/.bin is taken off PATH: a person has the machine's Node.js and npm, nothing more.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PORTS = [4000, 4001, 4002, 4003];
const WALK_TIMEOUT_MS = 420_000;

export function tryItBlocks(readme: string): string[] {
  const start = readme.indexOf('\n## Try it\n');
  assert.ok(start >= 0, 'README.md has a "## Try it" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.ok(blocks.length >= 2, 'the section has its ```sh blocks');
  return blocks;
}

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

async function busyPorts(): Promise<number[]> {
  const busy: number[] = [];
  for (const p of PORTS) if (await listening(p)) busy.push(p);
  return busy;
}

/** A small site on 127.0.0.1 for the audit block: two pages linked to each other. */
async function site(): Promise<{ url: string; server: Server }> {
  const page = (title: string, link: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p><a href="${link}">Next page</a></p><img src="/logo.png"></main></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/' || req.url === '/about')
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(req.url === '/' ? page('Home', '/about') : page('About', '/'));
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, server };
}

async function walk(shell: string): Promise<void> {
  assert.deepEqual(await busyPorts(), [], 'ports 4000-4003 are free before the walk (is a platform running?)');
  const script = tryItBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')).join('\n');
  const data = tempDir('readme-walk-');
  const audited = await site();
  const report = join(ROOT, 'report.html');
  assert.equal(existsSync(report), false, 'no report.html at the root before the walk (it writes one)');
  const bin = join(ROOT, 'node_modules', '.bin');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: (process.env.PATH ?? '')
      .split(delimiter)
      .filter((p) => p !== bin && p !== `${bin}/`)
      .join(delimiter),
    DATA_DIR: data.path,
    AUDIT_ALLOW_HOSTS: '127.0.0.1',
    SITE: audited.url,
  };
  for (const name of Object.keys(env))
    if (/^(npm_|INIT_CWD$|NODE$|LOG_|DATABASE_URL$|[A-Z]+_DATABASE_URL$|[A-Z]+_PORT$)/.test(name)) delete env[name];
  // Its own process group, so that whatever the walk leaves behind can be stopped when the test fails.
  const child = spawn(shell, ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  // A walk that hangs fails with its transcript rather than at the test's timeout.
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, WALK_TIMEOUT_MS);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  const left = hung ? [] : await busyPorts();
  const stopGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Nothing of the walk is left, as it should be.
    }
  };
  stopGroup('SIGKILL');
  // A platform left running (it is in the walk's group) is killed with it: the next walk needs the ports.
  for (let i = 0; i < 50 && (await busyPorts()).length; i++) await new Promise((r) => setTimeout(r, 200));
  audited.server.close();
  const html = existsSync(report) ? readFileSync(report, 'utf8') : '';
  rmSync(report, { force: true });
  data.remove();
  const transcript = `--- stdout\n${out}\n--- stderr\n${err}`;
  assert.ok(!hung, `the walk did not end within ${WALK_TIMEOUT_MS / 1000} s:\n${transcript}`);
  assert.deepEqual(left, [], `after the README's stop, nothing listens on 4000-4003:\n${transcript}`);
  assert.equal(code, 0, `the walk's last command failed:\n${transcript}`);
  assert.doesNotMatch(err, /in use by process|platform: /, `no command refused:\n${transcript}`);
  assert.match(out, /"active":true/, 'the introspection of the token');
  assert.match(out, /"scope":"reports:read"/);
  assert.match(out, /\{"accepted":1,"rejected":0,"errors":\[\]\}/, 'the batch of events');
  assert.match(
    out,
    /\{"items":\[\{"id":"prj_[^"]+","name":"Web shop","created_at":"\d{4}-\d\d-\d\dT[^"]+Z"\}\],"next":null\}/,
    'the admin API',
  );
  assert.match(out, /^tenant \d+ acme \(pro\)$/m, 'the tenant made while the platform runs');
  assert.match(out, /^user \d+ ann@acme\.example \(owner\) in acme$/m, 'its owner');
  assert.match(out, /"slug":"sales","title":"Sales"/, 'the dashboard created with the token of the dashboard CLI');
  assert.match(out, /"data":\[\{[^\]]*"slug":"sales"/, 'the dashboard found by search');
  assert.match(out, new RegExp(`\\{"id":"[^"]+","status":"completed","url":"${audited.url}"`), 'the audit finished');
  assert.match(html, /^<!doctype html>/i, 'the HTML report');
  assert.match(out, new RegExp(`^title: ${audited.url} Accessibility Conformance Report$`, 'm'), 'the OpenACR');
  assert.doesNotMatch(
    out,
    /cs_[A-Za-z0-9_-]{20,}|isk_[A-Za-z0-9_-]{20,}|ak_[A-Za-z0-9_-]{20,}/,
    'secrets went into variables, not onto the screen',
  );
  // Issue 23: the start's lines are not buried under one line per request (readiness polls included).
  assert.doesNotMatch(out, /"url":"\/ready"/, 'readiness polls are not logged at info');
  assert.match(out, /^identity\s+http:\/\/127\.0\.0\.1:4000$/m, 'the URLs are printed');
}

test(
  "the README's walk works pasted into sh (dash on Debian), and stopping it frees the ports",
  { timeout: 600_000 },
  () => walk('sh'),
);

test("the README's walk works pasted into bash, and stopping it frees the ports", { timeout: 600_000 }, () =>
  walk('bash'),
);
