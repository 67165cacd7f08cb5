import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';

export const WEB_DIST = new URL('./dist/', import.meta.url);
/** The first screen's JavaScript, gzip-compressed: the entry and what it imports statically. Charts and the editor load later. */
export const FIRST_SCREEN_MAX_GZIP_BYTES = 250 * 1024;

export interface WebBuild {
  files: { name: string; bytes: number; gzipBytes: number }[];
  firstScreenGzipBytes: number;
}

/** Builds the dashboard's web app into web/dashboard/dist with Vite (hashed file names under assets/). */
export async function buildWebApp(): Promise<WebBuild> {
  const output = (await build({
    configFile: new URL('./vite.config.ts', import.meta.url).pathname,
  })) as Rolldown.RolldownOutput;
  const chunks = output.output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
  const files = output.output.map((o) => {
    const content = readFileSync(new URL(o.fileName, WEB_DIST));
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
  return { files, firstScreenGzipBytes };
}
