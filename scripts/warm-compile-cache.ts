import { execFileSync } from 'node:child_process';
import pkg from '../package.json' with { type: 'json' };

/**
 * Loads the services' code once in a Node started as the `start` script starts it, with Node's compile cache on
 * (src/kit/compile-cache.ts), so that the first `npm start` finds the cache filled (scripts/build.ts, run by
 * `npm install`; bench/start.ts). A separate process: V8 rejects a code cache made under other flags
 * (`--liftoff-only`), and this one's are not the start's.
 */
export function warmCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const flags = /^exec node (.*) src\/cli\.ts start$/.exec(pkg.scripts.start)?.[1]?.split(' ') ?? [];
  const src = new URL('../src/', import.meta.url).href;
  const load = `
    await import(${JSON.stringify(`${src}kit/compile-cache.ts`)});
    const { services } = await import(${JSON.stringify(`${src}services.ts`)});
    for (const s of services) {
      await import(new URL(\`./\${s.name}/app.ts\`, ${JSON.stringify(src)}).href);
      await s.usage();
    }`;
  execFileSync(process.execPath, [...flags, '--input-type=module', '-e', load], { stdio: 'inherit', env });
}
