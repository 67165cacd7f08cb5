import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface DirectoryLock {
  release(): void;
}

export class DirectoryInUseError extends Error {
  constructor(dir: string, pid: number, owner: string) {
    super(
      `the data directory ${dir} is in use by process ${pid} (${owner}); stop it first, or point this command at the same PostgreSQL server with DATABASE_URL`,
    );
    this.name = 'DirectoryInUseError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An embedded PGlite directory can only be opened by one process: a second opener would corrupt it.
 * The lock is a file created exclusively, holding the owner's pid; a lock left by a dead process is taken over.
 */
export function lockDirectory(dir: string, owner: string): DirectoryLock {
  const path = join(dir, 'platform.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, owner }));
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
      let holder: { pid?: number; owner?: string } = {};
      try {
        holder = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        // A half-written or unreadable lock belongs to nobody alive.
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DirectoryInUseError(dir, holder.pid, holder.owner ?? 'unknown');
      }
      if (holder.pid === process.pid)
        throw new DirectoryInUseError(dir, holder.pid, `${holder.owner ?? 'unknown'}, in this process`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}
