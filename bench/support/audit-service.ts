import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// `platform start audit` in its own process, an API key for it, and one audit job through its API.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = process.execPath;

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

export interface AuditService {
  child: ChildProcess;
  /** Runs one audit job of one page and answers its result. */
  audit(url: string, config: Record<string, unknown>): Promise<AuditResultLite>;
  stop(): Promise<void>;
}

/** The parts of an audit result the corpus benchmark reads. */
export interface AuditResultLite {
  findings: Array<{ ruleId: string; successCriteria: string[]; selector: string }>;
  needsReview: Array<{ ruleId: string; successCriteria: string[]; selector: string }>;
  pages: Array<{ status: string; durationMs: number; error?: string | null }>;
}

export async function startAuditService(env: NodeJS.ProcessEnv): Promise<AuditService> {
  const key = await run(['src/cli.ts', 'audit', 'keys', 'create', '--name', 'bench-corpus'], env);
  if (key.code !== 0) throw new Error(`platform audit keys create failed: ${key.err}`);
  const apiKey = key.out.trim().split('\n').pop()!;
  const { child, url } = await new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const c = spawn(NODE, ['src/cli.ts', 'start', 'audit'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /audit\s+(http:\/\/\S+)/.exec(out);
      if (match) resolve({ child: c, url: match[1]! });
    });
    c.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    c.on('exit', (code) => reject(new Error(`platform start audit exited with ${code}: ${err}`)));
  });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  return {
    child,
    async audit(pageUrl, config) {
      const created = await fetch(`${url}/api/v1/audits`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: pageUrl, config }),
      });
      if (created.status !== 202)
        throw new Error(`POST /api/v1/audits answered ${created.status}: ${await created.text()}`);
      const { id } = (await created.json()) as { id: string };
      for (;;) {
        const job = (await (await fetch(`${url}/api/v1/audits/${id}`, { headers })).json()) as {
          status: string;
          error: string | null;
          result?: AuditResultLite;
        };
        if (job.status === 'completed' && job.result) return job.result;
        if (['completed', 'failed', 'cancelled'].includes(job.status))
          throw new Error(`the audit of ${pageUrl} ended ${job.status}: ${job.error}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
