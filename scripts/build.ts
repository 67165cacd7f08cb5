/**
 * What `npm install` builds (the `prepare` script) and `npm run build` rebuilds: the browser SDK that the ingest
 * service serves and the dashboard's web app. Prints each file's size and fails when the SDK's core, the web app's
 * first screen or any one of its chunks passes its limit, so CI's output shows them. Also makes the fresh PostgreSQL
 * cluster that new embedded databases are copied from, and a copy of it per service with its migrations applied
 * (src/kit/pglite-templates.ts), once per install, so that the first `npm start` runs neither initdb nor a
 * migration; a failure there is only reported, since a start does both when they are missing. And it loads the
 * services' code once, as `npm start` runs Node, with Node's compile cache on (src/kit/compile-cache.ts), so that the
 * first start finds the cache filled.
 */
import { warmCompileCache } from './warm-compile-cache.ts';
import { prepareInstallClusters } from '../src/kit/pglite-templates.ts';
import { services } from '../src/services.ts';
import { buildSdk, SDK_MAX_GZIP_BYTES } from '../sdk/build.ts';
import { buildWebApp, CHUNK_MAX_BYTES, FIRST_SCREEN_MAX_GZIP_BYTES } from '../web/dashboard/build.ts';

const files = await buildSdk();
for (const f of files) console.log(`sdk/dist/${f.name}: ${f.bytes} bytes, ${f.gzipBytes} bytes gzip`);
const core = files.find((f) => f.name === 'v1.js');
if (!core || core.gzipBytes > SDK_MAX_GZIP_BYTES) {
  console.error(`sdk/dist/v1.js is ${core?.gzipBytes} bytes gzip, over the ${SDK_MAX_GZIP_BYTES}-byte limit`);
  process.exitCode = 1;
}

const web = await buildWebApp();
for (const f of web.files) console.log(`web/dashboard/dist/${f.name}: ${f.bytes} bytes, ${f.gzipBytes} bytes gzip`);
console.log(`web/dashboard first screen: ${web.firstScreenGzipBytes} bytes of JavaScript gzip`);
if (web.firstScreenGzipBytes > FIRST_SCREEN_MAX_GZIP_BYTES) {
  console.error(
    `the web app's first screen is ${web.firstScreenGzipBytes} bytes gzip, over the ${FIRST_SCREEN_MAX_GZIP_BYTES}-byte limit`,
  );
  process.exitCode = 1;
}
for (const chunk of web.oversized) {
  console.error(
    `web/dashboard/dist/${chunk.name} is ${chunk.bytes} bytes, over the ${CHUNK_MAX_BYTES}-byte chunk limit`,
  );
  process.exitCode = 1;
}

const clusterStarted = performance.now();
try {
  const clusters = await prepareInstallClusters(services.map((s) => ({ schema: s.name, migrations: s.migrations })));
  const took = ((performance.now() - clusterStarted) / 1000).toFixed(1);
  for (const c of clusters)
    console.log(`embedded PostgreSQL cluster (${c.name}): ${c.dir} (${c.made ? 'made' : 'already made'})`);
  console.log(`embedded PostgreSQL clusters ready in ${took} s`);
} catch (err) {
  console.error(`embedded PostgreSQL clusters not made (npm start will do without): ${(err as Error).message}`);
}

try {
  warmCompileCache();
  console.log("the services' code compiled into Node's compile cache");
} catch (err) {
  console.error(`the services' code not compiled into Node's compile cache: ${(err as Error).message}`);
}
