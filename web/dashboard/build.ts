import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';

export const WEB_DIST = new URL('./dist/', import.meta.url);
/** The first screen's JavaScript, gzip-compressed: the entry and what it imports statically. Charts and the editor load later. */
export const FIRST_SCREEN_MAX_GZIP_BYTES = 250 * 1024;
/**
 * What one JavaScript chunk may weigh, minified: Vite's own warning threshold (500 kB), held here as a failure so the
 * warning cannot come back unnoticed. Split a chunk that grows past it (vite.config.ts), never raise the limit.
 */
export const CHUNK_MAX_BYTES = 500 * 1000;

export interface WebBuild {
  files: { name: string; bytes: number; gzipBytes: number }[];
  /** The JavaScript the entry imports statically: what the first screen loads before it can show anything. */
  firstScreen: string[];
  firstScreenGzipBytes: number;
  /** The JavaScript chunks over CHUNK_MAX_BYTES. */
  oversized: { name: string; bytes: number }[];
}

/**
 * Builds the dashboard's web app with Vite (hashed file names under assets/) into web/dashboard/dist, or into `outDir`
 * (a test builds into a folder of its own so it never empties the one a running service reads).
 */
export async function buildWebApp(outDir: URL = WEB_DIST): Promise<WebBuild> {
  const output = (await build({
    configFile: new URL('./vite.config.ts', import.meta.url).pathname,
    build: { outDir: fileURLToPath(outDir) },
  })) as Rolldown.RolldownOutput;
  const chunks = output.output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
  const files = output.output.map((o) => {
    const content = readFileSync(new URL(o.fileName, outDir));
    return { name: o.fileName, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  });
  const byName = new Map(chunks.map((c) => [c.fileName, c]));
  const firstScreen = new Set<string>();
  const visit = (name: string) => {
    if (firstScreen.has(name)) return;
    firstScreen.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  for (const c of chunks) if (c.isEntry) visit(c.fileName);
  const firstScreenGzipBytes = files.filter((f) => firstScreen.has(f.name)).reduce((sum, f) => sum + f.gzipBytes, 0);
  const oversized = files
    .filter((f) => f.name.endsWith('.js') && f.bytes > CHUNK_MAX_BYTES)
    .map(({ name, bytes }) => ({ name, bytes }));
  return { files, firstScreen: [...firstScreen], firstScreenGzipBytes, oversized };
}
