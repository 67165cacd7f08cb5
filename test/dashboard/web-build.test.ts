import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { buildWebApp, CHUNK_MAX_BYTES, FIRST_SCREEN_MAX_GZIP_BYTES, type WebBuild } from '../../web/dashboard/build.ts';
import { tempDir } from '../support/tmp.ts';

// The build `npm install` runs (scripts/build.ts), into a folder of its own: web/dashboard/dist stays as it is for the
// services other tests start.
describe('the web app build', () => {
  const dir = tempDir('web-build-');
  after(() => dir.remove());
  let built: Promise<WebBuild> | undefined;
  const build = () => (built ??= buildWebApp(pathToFileURL(`${dir.path}/`)));

  test('no chunk passes 500 kB, so Vite has no size warning to print', async () => {
    const { files, oversized } = await build();
    assert.deepEqual(oversized, []);
    const js = files.filter((f) => f.name.endsWith('.js'));
    assert.ok(js.length > 5, `the app is split into chunks: ${js.map((f) => f.name).join(', ')}`);
    for (const f of js) assert.ok(f.bytes <= CHUNK_MAX_BYTES, `${f.name} is ${f.bytes} bytes`);
  });

  test('the first screen stays under its limit and carries neither the charts nor the editor', async () => {
    const { firstScreen, firstScreenGzipBytes, files } = await build();
    assert.ok(firstScreenGzipBytes <= FIRST_SCREEN_MAX_GZIP_BYTES, `${firstScreenGzipBytes} bytes gzip`);
    const libraries = files.map((f) => f.name).filter((n) => /^assets\/(echarts|zrender|codemirror)-/.test(n));
    // echarts.ts (the app's wrapper) and the libraries' own chunks: ECharts, zrender, CodeMirror.
    assert.ok(
      libraries.some((n) => n.startsWith('assets/zrender-')),
      libraries.join(', '),
    );
    assert.ok(
      libraries.some((n) => n.startsWith('assets/codemirror-')),
      libraries.join(', '),
    );
    for (const n of libraries) assert.ok(!firstScreen.includes(n), `${n} loads with the first screen`);
  });
});
