import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../../src/kit/browser.ts';
import { collectLlmPageFacts, withLlmAssessment } from '../../../src/audit/llm/collect.ts';
import type { LlmSettings } from '../../../src/audit/llm/config.ts';
import { sampleResult } from '../fixtures/sample-result.ts';
import { AnthropicStandIn } from './stand-ins.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');
const PAGE = `<!doctype html><html lang="en"><head><title>Page 1</title></head><body>
<header><a href="/"><img src="/logo.png" alt="Shop home" width="40" height="40"></a></header>
<main><h1>Running shoes</h1>
<figure><img src="/IMG_2041.png" alt="IMG_2041.png" width="200" height="200"><figcaption>Red leather running shoes</figcaption></figure>
<img src="http://127.0.0.2:1/elsewhere.png" alt="From elsewhere" width="10" height="10">
<img src="/hidden.png" alt="hidden" style="display:none">
<p>For returns <a href="/returns">click here</a>.</p>
<p><a href="/cart" aria-label="Shopping cart"><svg width="24" height="24"></svg></a></p>
</main></body></html>`;

let browser: Browser;
let server: Server;
let origin = '';
let anthropic: AnthropicStandIn;

before(async () => {
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  server = createServer((req, res) => {
    if (req.url?.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  anthropic = await new AnthropicStandIn('sk-ant-test-key-1234').start();
});
after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  await anthropic?.close();
});

test('the facts of a page: title, main text, visible images with alt, context and same-origin pixels, links with their names', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/shoes`);
    const facts = await collectLlmPageFacts(page);
    assert.equal(facts.url, `${origin}/shoes`);
    assert.equal(facts.title, 'Page 1');
    assert.equal(facts.lang, 'en');
    assert.match(facts.mainText, /^Running shoes/);
    assert.deepEqual(facts.images.map((i) => i.alt), ['Shop home', 'IMG_2041.png', 'From elsewhere'], 'hidden images are left out');
    const shoe = facts.images[1]!;
    assert.equal(shoe.src, `${origin}/IMG_2041.png`);
    assert.equal(shoe.context, 'Red leather running shoes');
    assert.equal(shoe.selector, 'html > body > main > figure > img');
    assert.equal(shoe.data?.mediaType, 'image/png');
    assert.ok((shoe.data?.base64.length ?? 0) > 20, 'a same-origin image is read');
    assert.equal(facts.images[2]!.data, undefined, 'a cross-origin image is not');
    assert.deepEqual(facts.links.map((l) => [l.text, new URL(l.href).pathname]), [['Shop home', '/'], ['click here', '/returns'], ['Shopping cart', '/cart']]);
    assert.equal(facts.links[1]!.context, 'For returns click here.');
    assert.ok(await page.locator('canvas').count() === 0, 'nothing is left in the page');
  } finally {
    await context.close();
  }
});

test('withLlmAssessment adds judgements and never touches findings, score or conformance', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/shoes`);
    const facts = [await collectLlmPageFacts(page)];
    const settings: LlmSettings = {
      openaiApiKey: undefined, openaiBaseUrl: 'http://127.0.0.1:9/v1', openaiApi: 'chat', openaiModel: 'gpt-default',
      anthropicApiKey: 'sk-ant-test-key-1234', anthropicBaseUrl: anthropic.url, anthropicModel: 'claude-default',
      llmTimeoutMs: 10_000, llmMaxRetries: 0, llmSendImages: true,
    };
    const clean = sampleResult({ clean: true });
    clean.config.llm = { enabled: true, provider: null, model: null };
    const judged = await withLlmAssessment(clean, facts, settings);
    assert.equal(judged.llm?.provider, 'anthropic', 'the provider with a key when none is named');
    assert.equal(judged.llm?.status, 'completed');
    assert.deepEqual(judged.llm?.findings.map((f) => f.check).sort(), ['image-alt', 'link-purpose', 'page-title']);
    assert.equal(judged.conformant, true);
    assert.deepEqual({ score: judged.score, stats: judged.stats, findings: judged.findings }, { score: clean.score, stats: clean.stats, findings: clean.findings });
    const sent = JSON.parse(anthropic.received[0]!.body.toString()) as { messages: { content: { type: string; source?: { type: string } }[] }[] };
    assert.deepEqual(sent.messages[0]!.content.filter((c) => c.type === 'image').map((c) => c.source!.type), ['base64', 'base64'], 'the two same-origin images go inline; the http one stays out');

    anthropic.fail({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const down = await withLlmAssessment(clean, facts, { ...settings, llmMaxRetries: 0 });
    assert.equal(down.llm?.status, 'failed');
    assert.match(down.llm!.error!, /overloaded/);
    assert.equal(down.conformant, true, 'a failing provider leaves the audit complete');

    const off = sampleResult();
    assert.equal(await withLlmAssessment(off, facts, settings), off, 'nothing asked, nothing done');
  } finally {
    await context.close();
  }
});
