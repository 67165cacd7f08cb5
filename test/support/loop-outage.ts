import assert from 'node:assert/strict';
import { startPgProxy } from './pg-proxy.ts';
import { freshPostgres } from './postgres.ts';
import { startServiceProcess } from './service-process.ts';
import { tempDir } from './tmp.ts';

/** One line of a service's JSON log. */
export type LogLine = Record<string, any>;

export interface LoopOutage {
  /** The lines logged while the database was unreachable. */
  during: LogLine[];
  /** The lines logged once it was reachable again, until the log said so (or `backMs` passed). */
  after: LogLine[];
}

/**
 * `platform start <service>` on a fresh database reached through a proxy that is taken down for `downMs` and brought
 * back, with no request sent meanwhile (`before` may send some first): what the service logs is its background loops'
 * alone. Resolves once the log
 * says the database is available again, or after `backMs` without it.
 */
export async function loopOutage(
  service: string,
  env: (databaseUrl: string) => Record<string, string>,
  options: {
    downMs: number;
    backMs: number;
    /** What the loops should have to do when the database goes (a destination and events waiting for it). */
    before?: (serviceUrl: string) => Promise<void>;
  },
): Promise<LoopOutage> {
  const database = await freshPostgres(`${service}loopoutage`);
  const proxy = await startPgProxy();
  const dataDir = tempDir();
  try {
    const running = await startServiceProcess(service, {
      DATA_DIR: dataDir.path,
      PLATFORM_SECRET_KEY: 'e'.repeat(64),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...env(proxy.url(database.url)),
    });
    try {
      await options.before?.(running.url);
      const lines = () => logLines(running.stdout());
      const before = lines().length;
      proxy.down();
      await new Promise((r) => setTimeout(r, options.downMs));
      const down = lines().length;
      proxy.up();
      const deadline = Date.now() + options.backMs;
      while (Date.now() < deadline && !lines().some((l) => l.msg === 'database available again'))
        await new Promise((r) => setTimeout(r, 50));
      const all = lines();
      return { during: all.slice(before, down), after: all.slice(down) };
    } finally {
      await running.stop();
    }
  } finally {
    await proxy.close();
    await database.drop();
    dataDir.remove();
  }
}

/** The complete JSON lines of a log so far (a line still being written is left for the next look). */
function logLines(text: string): LogLine[] {
  return text
    .slice(0, text.lastIndexOf('\n'))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/**
 * What every loop's outage test asserts: one error line while the database was gone, one "available again" after it
 * (told by a loop, since no request came) counting at least `minFailures`, and nothing else at warning or above.
 */
export function assertOneOutage({ during, after }: LoopOutage, minFailures: number): void {
  const errors = during.filter((l) => l.level >= 50);
  assert.equal(errors.length, 1, JSON.stringify(errors.map((l) => l.msg)));
  assert.match(errors[0]!.msg, /^database unavailable/);
  const back = after.filter((l) => l.msg === 'database available again');
  assert.equal(back.length, 1, 'no line said the database was back');
  assert.ok(back[0]!.failures >= minFailures, JSON.stringify(back[0]));
  assert.deepEqual(
    [...during, ...after].filter((l) => l.level >= 40 && l !== errors[0] && l !== back[0]),
    [],
    'nothing else at warning level or above',
  );
}
