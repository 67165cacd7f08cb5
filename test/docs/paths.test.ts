import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Docs may only cite files that are in the repository: every repository path named in README.md and
// docs/*.md (`src/...`, `test/...`, ...) must exist. Paths with placeholders (`<service>`, `*`) are patterns.
// `shared/...` is checked too: the contract documents are not in the repository, so docs cite them by name.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PATH = /(?<![\w./-])(?:src|test|docs|bench|bin|sdk|scripts|shared|\.github)\/[A-Za-z0-9_./-]*[A-Za-z0-9_/]/g;

test('every repository path named in README.md and docs/ exists', () => {
  const files = [
    'README.md',
    'bench/README.md',
    ...readdirSync(`${ROOT}docs`)
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const missing: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    for (const m of text.matchAll(PATH)) {
      const after = text[m.index + m[0].length];
      if (after === '<' || after === '*' || after === '{') continue;
      checked++;
      if (!existsSync(`${ROOT}${m[0]}`)) missing.push(`${file}: ${m[0]}`);
    }
  }
  assert.ok(checked > 50, `only ${checked} paths found: the pattern is broken`);
  assert.deepEqual(missing, []);
});
