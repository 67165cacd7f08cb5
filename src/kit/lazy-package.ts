import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded at its first use instead of at start, for code only some requests reach (a sitemap, an OpenACR
 * download, a CI file): a service that never needs it never holds its code and heap (bench/README.md, issue 33).
 * Synchronous, so the functions that use it stay as they are.
 */
export function lazyPackage<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
