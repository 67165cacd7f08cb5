import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FAST_AUDITS } from './support.ts';

const BIN = new URL('../../bin/platform.js', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `platform audit run …` as a CI job runs it: the package's own `bin/platform.js` (what `npx platform` starts) in
 * the team's project folder `cwd`, with its site file there, and only the environment given (plus PATH).
 */
export function platformRun(args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const { AUDIT_ALLOW_HOSTS: _allow, ...fast } = FAST_AUDITS;
  const child = spawn(process.execPath, [BIN, 'audit', 'run', ...args], {
    cwd,
    env: { PATH: process.env.PATH, DATA_DIR: join(cwd, '.platform-data'), ...fast, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Writes a YAML file into the project folder. */
export function writeYaml(cwd: string, name: string, value: unknown): string {
  const path = join(cwd, name);
  writeFileSync(path, stringify(value));
  return path;
}
