import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { BrowserHost } from '../../src/audit/engine/browser-host.ts';

/** The command lines of this process's children: the browser Playwright launched is one of them. */
function childCommandLines(): string[][] {
  const lines: string[][] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === process.pid) lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'));
    } catch {
      // exited meanwhile
    }
  }
  return lines;
}

// Chromium keeps only the last --disable-features: the audit's own list must carry Playwright's along.
test('the audit browser runs without the omnibox popup and keeps every feature Playwright disables', {
  skip: process.platform !== 'linux',
}, async () => {
  const host = new BrowserHost({ info() {}, warn() {} });
  try {
    await host.browser();
    const browser = childCommandLines().find((args) => args.includes('--remote-debugging-pipe'));
    assert.ok(browser, 'the launched browser is a child of this process');
    const lists = browser.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice(19).split(','));
    assert.ok(lists.length > 0);
    const effective = lists.at(-1)!;
    for (const feature of lists.flat())
      assert.ok(effective.includes(feature), `${feature} is disabled by the last list`);
    assert.ok(effective.includes('WebUIOmniboxPopup'));
    assert.ok(effective.includes('WebUIOmniboxAimPopup'));
  } finally {
    await host.close();
  }
});
