import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { findChromium } from '../../src/kit/browser.ts';

test('CHROMIUM_PATH wins, and must name an existing file', async () => {
  assert.equal(await findChromium({ CHROMIUM_PATH: process.execPath }), process.execPath);
  await assert.rejects(findChromium({ CHROMIUM_PATH: '/nowhere/chromium' }), /CHROMIUM_PATH is malformed/);
});

test('PLATFORM_BROWSER=npm skips the system browser for the npm package', async () => {
  const path = await findChromium({ PLATFORM_BROWSER: 'npm' });
  assert.notEqual(path, '/usr/bin/chromium');
  assert.ok(existsSync(path), `the npm package unpacked its browser to ${path}`);
});

test('PLATFORM_BROWSER takes only auto or npm', async () => {
  await assert.rejects(
    findChromium({ PLATFORM_BROWSER: 'system' }),
    /PLATFORM_BROWSER is malformed: expected "auto" or "npm"/,
  );
});
