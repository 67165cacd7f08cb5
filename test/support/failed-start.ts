import { spawn } from 'node:child_process';
import { once } from 'node:events';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

/**
 * `platform start <service>` that is expected to fail, on `env` (a data directory and a database at least): its exit code
 * and what it wrote to stderr. Should it start listening after all, it is killed, so the test fails instead of hanging.
 */
export async function failedStart(
  service: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'start', service], {
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'silent',
      PLATFORM_SECRET_KEY: 'e'.repeat(64),
      [`${service.toUpperCase()}_PORT`]: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    if (/http:\/\//.test(d.toString())) child.kill('SIGKILL');
  });
  const [status] = await once(child, 'exit');
  return { status: status as number | null, stderr };
}
