import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

// The accessibility corpus of bench/a11y-corpus: one folder per rule, its manifest, one page per case.

export interface CorpusCase {
  rule: string;
  /** 'axe' rules run in the default audit; 'deep' ones need the deep audit. */
  engine: 'axe' | 'deep';
  /** WCAG criteria the rule tests, e.g. ["1.4.10"]. */
  criteria: string[];
  /** The level the case is audited at: a AAA rule (2.4.13, 2.3.3) runs only in an AAA audit. */
  level: 'A' | 'AA' | 'AAA';
  /** The rule only asks a person (needs review), it never fails an element. */
  reviewOnly: boolean;
  /** Path under the corpus, e.g. "reflow/fail-wide-image.html". */
  path: string;
  expected: 'failed' | 'passed';
  title: string;
}

interface Manifest {
  rule: string;
  engine: 'axe' | 'deep';
  criteria: string[];
  level: 'A' | 'AA' | 'AAA';
  reviewOnly?: boolean;
  cases: Array<{ file: string; expected: 'failed' | 'passed'; title: string }>;
}

export function readCorpus(root: string): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const dir of readdirSync(root, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const m = JSON.parse(readFileSync(join(root, dir.name, 'manifest.json'), 'utf8')) as Manifest;
    for (const c of m.cases)
      cases.push({
        rule: m.rule,
        engine: m.engine,
        criteria: m.criteria,
        level: m.level,
        reviewOnly: m.reviewOnly === true,
        path: `${dir.name}/${c.file}`,
        expected: c.expected,
        title: c.title,
      });
  }
  return cases.sort((a, b) => a.path.localeCompare(b.path));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.wav': 'audio/wav',
  '.json': 'application/json',
};

/** Serves the corpus folder as it is on 127.0.0.1 (files only, nothing outside it). */
export async function serveCorpus(root: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    if (path.startsWith('..')) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(join(root, path));
      // Media answers byte ranges in full: Chromium asks for ranges and plays a 200 as well.
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
