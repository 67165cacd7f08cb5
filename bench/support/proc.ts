import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) used so far by a process, or 0 if it has gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds so far of each PostgreSQL process on this machine (backends, WAL writer, checkpointer), by pid. */
export function postgresCpuSeconds(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        byPid.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // exited meanwhile
    }
  }
  return byPid;
}

/** CPU used between two samples by the processes alive at the second (a backend started meanwhile counts from 0). */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of postgresCpuSeconds()) total += seconds - (before.get(pid) ?? 0);
  return total;
}
