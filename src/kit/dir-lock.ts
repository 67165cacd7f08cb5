import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface DirectoryLock {
  release(): void;
}

/** Who holds a data folder: its pid, the service that opened it, and the `platform` command it runs (start, migrate, a service). */
export interface FolderHolder {
  pid: number;
  owner: string;
  command: string | undefined;
}

export class DirectoryInUseError extends Error {
  readonly dir: string;
  readonly holder: FolderHolder;
  constructor(dir: string, holder: FolderHolder, advice?: string) {
    super(
      `the data folder ${dir} is in use by ${describeHolder(holder)}; ${advice ?? 'stop it first, or point every process at the same PostgreSQL server with DATABASE_URL'}`,
    );
    this.name = 'DirectoryInUseError';
    this.dir = dir;
    this.holder = holder;
  }
}

/** "process 123 (`platform start`, identity)", as messages name a holder. */
export function describeHolder(holder: FolderHolder): string {
  const what = [holder.command && `\`platform ${holder.command}\``, holder.owner].filter(Boolean).join(', ');
  return `process ${holder.pid} (${what})`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const lockPath = (dir: string) => join(dir, 'platform.lock');

function readHolder(path: string): Partial<FolderHolder> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<FolderHolder>;
  } catch {
    // No lock, or a half-written or unreadable one: it belongs to nobody alive.
    return {};
  }
}

/** The live process other than this one that holds `dir`, if any. */
export function folderHolder(dir: string): FolderHolder | undefined {
  const h = readHolder(lockPath(dir));
  if (typeof h.pid !== 'number' || h.pid === process.pid || !alive(h.pid)) return undefined;
  return { pid: h.pid, owner: h.owner ?? 'unknown', command: typeof h.command === 'string' ? h.command : undefined };
}

// The `platform` command this process runs (`start`, `migrate`, a service's name), kept in the lock so that another
// process can tell a running platform, which takes commands over its control socket, from a command that ends soon.
const COMMAND = /^[a-z][a-z-]{0,30}$/.test(process.argv[2] ?? '') ? process.argv[2] : undefined;

/**
 * An embedded PGlite directory can only be opened by one process: a second opener would corrupt it.
 * The lock is a file created exclusively, holding the owner's pid; a lock left by a dead process is taken over.
 */
export function lockDirectory(dir: string, owner: string): DirectoryLock {
  const path = lockPath(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, owner, command: COMMAND }));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(path);
      const named = { owner: holder.owner ?? 'unknown', command: holder.command };
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DirectoryInUseError(dir, { pid: holder.pid, ...named });
      }
      if (holder.pid === process.pid)
        throw new DirectoryInUseError(dir, { pid: holder.pid, ...named, owner: `${named.owner}, in this process` });
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}
