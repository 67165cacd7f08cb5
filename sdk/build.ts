import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const SDK_DIST = new URL('./dist/', import.meta.url);
/** The core module's limit, minified and gzip-compressed; web vitals are a second module and not counted. */
export const SDK_MAX_GZIP_BYTES = 8 * 1024;

export interface BuiltFile {
  name: string;
  bytes: number;
  gzipBytes: number;
}

/** Bundles the SDK into dist/v1.js (the core) and dist/v1-vitals.js (web vitals, loaded only when enabled). */
export async function buildSdk(): Promise<BuiltFile[]> {
  const result = await build({
    entryPoints: {
      v1: new URL('./src/index.ts', import.meta.url).pathname,
      'v1-vitals': new URL('./src/vitals.ts', import.meta.url).pathname,
    },
    outdir: SDK_DIST.pathname,
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    write: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const { readFileSync } = await import('node:fs');
  return Object.keys(result.metafile.outputs)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((file) => {
      const content = readFileSync(file);
      return {
        name: file.slice(file.lastIndexOf('/') + 1),
        bytes: content.length,
        gzipBytes: gzipSync(content, { level: 9 }).length,
      };
    });
}
