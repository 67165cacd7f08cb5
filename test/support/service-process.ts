import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

export interface ServiceProcess {
  child: ChildProcess;
  /** The base URL the (first) service printed, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Every started service's URL by name (`platform start identity dashboard` prints one line each). */
  urls: Record<string, string>;
  /** What the process wrote to stdout so far: the URL line, then its log (pino's JSON lines). */
  stdout(): string;
  /** What the process wrote to stderr so far (errors at start, a crash). */
  stderr(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGTERM, then waits for the exit; answers the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `platform start <service>` in a child process on port 0, resolved once it prints its URL: the code
 * an operator runs, so a crash of the process is seen as one (not as a failure of the test runner).
 */
export async function startServiceProcess(
  which: string | string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ServiceProcess> {
  const names = Array.isArray(which) ? which : [which];
  const service = names.join(' ');
  const ports = Object.fromEntries(names.map((n) => [`${n.toUpperCase()}_PORT`, '0']));
  const child = spawn(process.execPath, [CLI, 'start', ...names], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...ports, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit');
  const urls: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    // A child left running would keep the test file alive (and hold its database) after the failure.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${service} did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      for (const n of names) {
        const m = new RegExp(`^${n}\\s+(http://\\S+)\\n`, 'm').exec(stdout);
        if (m) urls[n] = m[1]!;
      }
      if (names.every((n) => urls[n])) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${service} exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
  return {
    child,
    url: urls[names[0]!]!,
    urls,
    stdout: () => stdout,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
