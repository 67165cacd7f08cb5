/**
 * What `npm install` builds (the `prepare` script) and `npm run build` rebuilds: the browser SDK that the ingest
 * service serves and the dashboard's web app. Prints each file's size and fails when the SDK's core, the web app's
 * first screen or any one of its chunks passes its limit, so CI's output shows them. Also makes the fresh PostgreSQL
 * cluster that new embedded databases are copied from (src/kit/pglite-cluster.ts), once per install, so that the
 * first `npm start` does not run initdb; a failure there is only reported, since a start makes it when it is missing.
 */
import { prepareCluster } from '../src/kit/pglite-cluster.ts';
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
  const cluster = await prepareCluster();
  const took = ((performance.now() - clusterStarted) / 1000).toFixed(1);
  console.log(`embedded PostgreSQL cluster: ${cluster.dir} (${cluster.made ? `made in ${took} s` : 'already made'})`);
} catch (err) {
  console.error(`embedded PostgreSQL cluster not made (npm start will make it): ${(err as Error).message}`);
}
