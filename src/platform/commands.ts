import { UsageError } from '../kit/cli-runner.ts';
import { sendCommand, controlSocketPath } from '../kit/control.ts';
import { DirectoryInUseError, describeHolder, folderHolder, type FolderHolder } from '../kit/dir-lock.ts';
import type { CommandIO, Service } from '../kit/service.ts';

const POLL_MS = 200;
/** Said on stderr once a command has waited this long, so a wait is never silent. */
const TELL_AFTER_MS = 1000;

/**
 * `platform <service> ...`. On embedded storage, while another process holds the service's data folder, the command
 * runs there: a running platform takes it over its control socket (src/kit/control.ts); one still starting, or another
 * command holding the folder, is waited for (PLATFORM_COMMAND_WAIT). Otherwise it runs here, on its own database.
 */
export async function runServiceCommand(
  service: Service,
  args: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIO,
): Promise<number> {
  const loaded = service.load(env);
  if (!loaded.command) throw new UsageError(`unknown command "${service.name}"`);
  const folder = loaded.dataFolder;
  const helpOnly = args.length === 0 || args.includes('--help') || args.includes('-h');
  if (folder && !helpOnly && process.platform !== 'win32') {
    const code = await runWhereHeld(folder, [service.name, ...args], io, loaded.commandWaitMs);
    if (code !== undefined) return code;
  }
  return loaded.command(args, io);
}

/** The exit code of the command run by the process holding `folder`; undefined once nobody holds it. */
async function runWhereHeld(
  folder: string,
  argv: string[],
  io: CommandIO,
  waitMs: number,
): Promise<number | undefined> {
  const since = Date.now();
  let told = false;
  for (;;) {
    const holder = folderHolder(folder);
    if (!holder) return undefined;
    const code = await sendCommand(folder, argv, io);
    if (code !== undefined) return code;
    const waited = Date.now() - since;
    if (waited >= waitMs) throw new DirectoryInUseError(folder, holder, advice(folder, holder, waitMs));
    if (!told && waited >= TELL_AFTER_MS) {
      told = true;
      io.err(
        `platform: waiting for ${describeHolder(holder)}, which holds ${folder}${holder.command === 'start' ? ' and is still starting' : ''} (at most ${Math.round(waitMs / 1000)} s)`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function advice(folder: string, holder: FolderHolder, waitMs: number): string {
  const seconds = Math.round(waitMs / 1000);
  if (holder.command === 'start')
    return `it took no command on ${controlSocketPath(folder)} within ${seconds} s (a platform started by an older version has no control socket): stop it (kill ${holder.pid}), start it again, and run this command again`;
  return `it still held it after ${seconds} s: wait for it to end, or stop it (kill ${holder.pid}), then run this command again`;
}
