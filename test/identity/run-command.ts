import { loadIdentityConfig } from '../../src/identity/config.ts';
import { identityCommand } from '../../src/identity/cli/command.ts';

export interface Ran {
  code: number;
  out: string[];
  err: string[];
}

/** `platform identity <args>` run here, on the configuration of `env`, with what it printed on each stream. */
export async function runIdentityCommand(env: NodeJS.ProcessEnv, args: string[]): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await identityCommand(args, loadIdentityConfig(env), {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}
