/**
 * What `npm install` builds (the `prepare` script) and `npm run build` rebuilds: the browser SDK that the ingest
 * service serves. Prints each file's size and fails when the SDK's core passes its limit, so CI shows both.
 */
import { buildSdk, SDK_MAX_GZIP_BYTES } from '../sdk/build.ts';

const files = await buildSdk();
for (const f of files) console.log(`sdk/dist/${f.name}: ${f.bytes} bytes, ${f.gzipBytes} bytes gzip`);
const core = files.find((f) => f.name === 'v1.js');
if (!core || core.gzipBytes > SDK_MAX_GZIP_BYTES) {
  console.error(`sdk/dist/v1.js is ${core?.gzipBytes} bytes gzip, over the ${SDK_MAX_GZIP_BYTES}-byte limit`);
  process.exitCode = 1;
}
