import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

export interface ServiceProcess {
  child: ChildProcess;
  /** The base URL the service printed, e.g. http://127.0.0.1:41234. */
  url: string;
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
export async function startServiceProcess(service: string, env: Record<string, string>, timeoutMs = 120_000): Promise<ServiceProcess> {
  const prefix = service.toUpperCase();
  const child = spawn(process.execPath, [CLI, 'start', service], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', [`${prefix}_PORT`]: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    // A child left running would keep the test file alive (and hold its database) after the failure.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${service} did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = new RegExp(`${service}\\s+(http://\\S+)\\n`).exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${service} exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
  return {
    child,
    url,
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
