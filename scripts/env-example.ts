/**
 * Writes `.env.example` at the repository's root from the declared configuration (src/platform/env-example.ts).
 * Run it after adding or changing a variable: test/docs/env-example.test.ts fails until the file matches.
 */
import { writeFileSync } from 'node:fs';
import { renderEnvExample } from '../src/platform/env-example.ts';

const path = new URL('../.env.example', import.meta.url);
writeFileSync(path, renderEnvExample());
console.log(`wrote ${path.pathname}`);
