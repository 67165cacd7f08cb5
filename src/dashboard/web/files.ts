import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm install` (scripts/build.ts) puts the built web app. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dashboard/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export interface WebFile {
  body: Buffer;
  type: string;
}

/**
 * The built app read once at start: a few hundred kilobytes, so memory is cheaper than a file system
 * lookup per request, and a path can only ever name a file that was there (no traversal to guard).
 */
export function loadWebFiles(dir = WEB_DIST_DIR): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  if (!existsSync(dir)) return files;
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        files.set(`/${relative(dir, path).split(sep).join('/')}`, {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? 'application/octet-stream',
        });
    }
  };
  walk(dir);
  return files;
}
