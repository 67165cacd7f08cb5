import { enableCompileCache } from 'node:module';

/**
 * Node's on-disk compile cache (V8's code cache of every module, TypeScript after its types are stripped), enabled as
 * the `platform` command's first import, before the services' code is imported (src/services.ts imports each
 * service's code when it is started). Loading the four services' code took 1.7-1.9 s of the main thread at each
 * start, 1.2-1.3 s with the cache (bench/README.md, "start"). Node's default folder (`node-compile-cache` in the
 * temporary folder, or NODE_COMPILE_CACHE), keyed by Node version and file contents, so a stale entry is never
 * used; NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be written leaves the cache off.
 */
enableCompileCache();
