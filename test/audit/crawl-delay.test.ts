import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import {
  crawlDelayMs,
  crawlPause,
  MAX_CRAWL_DELAY_SECONDS,
  withStrictCrawlDelays,
} from '../../src/audit/crawl/crawl-delay.ts';
import { loadSiteRules } from '../../src/audit/crawl/site-rules.ts';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';
import { page, serveSite, type SitePage, type TestSite } from './support.ts';

// robots.txt is read by the crawler itself (no browser): each case serves another one from the same site.
const pages: Record<string, SitePage | string> = { '/': page('Home', '<p>home</p>') };
let site: TestSite;
const policy = createAddressPolicy(['127.0.0.1']);

before(async () => {
  site = await serveSite(pages);
});

after(async () => {
  await site?.close();
});

async function delayFor(robots: string | null): Promise<number> {
  if (robots === null) delete pages['/robots.txt'];
  else pages['/robots.txt'] = { body: robots, headers: { 'content-type': 'text/plain' } };
  return (await loadSiteRules(`${site.origin}/`, policy, 10)).crawlDelayMs;
}

test('Crawl-delay is read for PlatformAudit, else for *, in seconds, capped', async () => {
  assert.equal(await delayFor('User-agent: *\nCrawl-delay: 2\n'), 2000);
  assert.equal(await delayFor('User-agent: *\nCrawl-delay: 0.5\n'), 500);
  assert.equal(
    await delayFor('User-agent: PlatformAudit\nCrawl-delay: 1\n\nUser-agent: *\nCrawl-delay: 5\n'),
    1000,
    'our own group wins over *',
  );
  assert.equal(await delayFor('User-agent: platformaudit\nCrawl-delay: 3\n'), 3000, 'user agents match in any case');
  assert.equal(
    await delayFor('User-agent: PlatformAudit\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 5\n'),
    0,
    'our own group without a delay: none, * does not apply',
  );
  assert.equal(await delayFor('User-agent: otherbot\nCrawl-delay: 9\n'), 0, "another crawler's delay is not ours");
  assert.equal(
    await delayFor('User-agent: *\nCrawl-delay: 86400\n'),
    MAX_CRAWL_DELAY_SECONDS * 1000,
    'a day is capped at 30 s',
  );
  assert.equal(await delayFor('User-agent: *\nCrawl-delay: 2.5\n'), 2500, 'a decimal fraction');
  assert.equal(
    await delayFor('User-agent: *\nCrawl-delay:   5 \n'),
    5000,
    'white space around the value is not part of it',
  );
  assert.equal(
    await delayFor('User-agent: *\nCrawl-delay: 4 # seconds\n'),
    4000,
    'a comment after the value is not part of it',
  );
  assert.equal(await delayFor('User-agent: *\r\nCrawl-delay: 3\r\n'), 3000, 'CRLF line ends');
  assert.equal(await delayFor('User-agent: *\nDisallow: /private\n'), 0, 'absent: no delay');
  assert.equal(await delayFor(null), 0, 'no robots.txt (404): no delay');
});

test('a malformed Crawl-delay means no delay, and the rest of robots.txt still holds', async () => {
  // Number() reads several of these (hex, binary, exponents, a sign, a bare point); a Crawl-delay is a plain decimal.
  const values = [
    'soon',
    '2 seconds',
    '-3',
    '-1',
    '0',
    '',
    'Infinity',
    '-Infinity',
    'NaN',
    '1,5',
    '0x10',
    '0X10',
    '0b11',
    '0o7',
    '1e1',
    '1E1',
    '+5',
    '.5',
    '5.',
    '1.2.3',
    '٣',
  ];
  for (const value of values) {
    assert.equal(
      await delayFor(`User-agent: *\nCrawl-delay: ${value}\nDisallow: /private\n`),
      0,
      `Crawl-delay: ${value}`,
    );
  }
  const rules = await loadSiteRules(`${site.origin}/`, policy, 10);
  assert.equal(rules.allowed(`${site.origin}/private/x`), false, 'the Disallow next to a malformed delay is honoured');
  assert.equal(rules.allowed(`${site.origin}/public`), true);
  // A malformed delay in our own group still makes it our group: * does not apply instead.
  assert.equal(
    await delayFor('User-agent: PlatformAudit\nCrawl-delay: 0x10\n\nUser-agent: *\nCrawl-delay: 5\n'),
    0,
    'our group, malformed',
  );
});

test('withStrictCrawlDelays leaves everything but a malformed Crawl-delay as it was', () => {
  const text =
    'User-agent: *\nCrawl-delay: 0x10 # hex\nDisallow: /a\ncrawl-delay : 1.5\nSitemap: https://example.com/s.xml#crawl-delay: 1e1\n';
  assert.equal(
    withStrictCrawlDelays(text),
    'User-agent: *\nCrawl-delay: malformed\nDisallow: /a\ncrawl-delay : 1.5\nSitemap: https://example.com/s.xml#crawl-delay: 1e1\n',
  );
});

test('crawlDelayMs refuses what is not a positive finite number of seconds', () => {
  for (const v of [undefined, Number.NaN, -1, 0, Number.POSITIVE_INFINITY]) assert.equal(crawlDelayMs(v), 0, String(v));
  assert.equal(crawlDelayMs(1.25), 1250);
  assert.equal(crawlDelayMs(31), 30_000);
});

test('a crawl pause ends when the audit is stopped, without waiting out its time', async () => {
  const controller = new AbortController();
  const pause = crawlPause(60_000, controller.signal);
  let ended = false;
  void pause.done.then(() => {
    ended = true;
  });
  await Promise.resolve();
  assert.equal(ended, false, 'still waiting before the stop');
  controller.abort();
  await pause.done;
  assert.equal(ended, true);
  // Cancelled pauses leave no listener behind on the audit's signal, however many a long crawl makes.
  const long = new AbortController();
  for (let i = 0; i < 50; i++) crawlPause(60_000, long.signal).cancel();
  assert.equal(getEventListeners(long.signal, 'abort').length, 0);
});
