import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from '../support.ts';
import { AnthropicStandIn, OpenAiStandIn } from './stand-ins.ts';

const OPENAI_KEY = 'sk-proj-service-test-000111';
const ANTHROPIC_KEY = 'sk-ant-api03-service-test-222333';
let h: AuditHarness;
let site: TestSite;
let openai: OpenAiStandIn;
let anthropic: AnthropicStandIn;

before(async () => {
  openai = await new OpenAiStandIn(OPENAI_KEY).start();
  anthropic = await new AnthropicStandIn(ANTHROPIC_KEY).start();
  h = await startAudit(
    {
      AUDIT_OPENAI_API_KEY: OPENAI_KEY,
      AUDIT_OPENAI_BASE_URL: `${openai.url}/v1`,
      AUDIT_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      AUDIT_ANTHROPIC_BASE_URL: anthropic.url,
      AUDIT_LLM_TIMEOUT_MS: '3000',
      AUDIT_LLM_MAX_RETRIES: '1',
    },
    'auditllm',
  );
  site = await serveSite({
    '/': page(
      'Page 1',
      '<figure><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="IMG_2041.jpg" width="50" height="50"><figcaption>Red shoes</figcaption></figure><p>For returns <a href="/returns">click here</a>.</p>',
    ),
  });
});
after(async () => {
  await site?.close();
  await h?.close();
  await openai?.close();
  await anthropic?.close();
});

async function audit(llm: object) {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/`, llm });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test("POST /audit with llm: the model's judgements come apart from the findings, marked, with confidence", async () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    const result = await audit({ enabled: true, provider, model: `${provider}-model` });
    assert.equal(result.llm.status, 'completed', result.llm.error);
    assert.equal(result.llm.provider, provider);
    assert.deepEqual(result.llm.findings.map((f: { check: string }) => f.check).sort(), [
      'image-alt',
      'link-purpose',
      'page-title',
    ]);
    for (const f of result.llm.findings) {
      assert.equal(f.source, 'llm');
      assert.equal(f.model, `${provider}-model`);
      assert.ok(f.confidence > 0 && f.confidence <= 1);
    }
    assert.equal(result.conformant, true, 'LLM findings never change conformance');
    assert.equal(result.stats.totalFindings, 0);
    assert.ok(!result.findings.some((f: { source?: string }) => f.source === 'llm'));
  }
  const sent = JSON.parse(anthropic.received.at(-1)!.body.toString()) as {
    messages: { content: { type: string; text?: string }[] }[];
  };
  assert.match(
    sent.messages[0]!.content[0]!.text!,
    /^img-0: alt="IMG_2041\.jpg"/m,
    "the engine collected the page's images",
  );
});

test('a failing provider leaves the audit complete, without LLM findings, and says why', async () => {
  openai.fail({
    status: 429,
    headers: { 'retry-after': '60' },
    body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
  });
  const limited = await audit({ enabled: true, provider: 'openai' });
  assert.equal(limited.llm.status, 'failed');
  assert.match(limited.llm.error, /openai limited the rate \(429\)/);
  assert.deepEqual(limited.llm.findings, []);
  assert.equal(limited.conformant, true);

  anthropic.fail(
    { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    2,
  );
  const overloaded = await audit({ enabled: true, provider: 'anthropic' });
  assert.equal(overloaded.llm.status, 'failed');
  assert.match(overloaded.llm.error, /anthropic is overloaded \(529\)/);

  anthropic.fail({ delayMs: 10_000, status: 200, body: {} });
  const slow = await audit({ enabled: true, provider: 'anthropic' });
  assert.equal(slow.llm.status, 'failed');
  assert.match(slow.llm.error, /did not answer within the time limit/);
});

test('no LLM asked: none called', async () => {
  const before = openai.received.length + anthropic.received.length;
  const result = await audit({ enabled: false });
  assert.equal(result.llm, null);
  assert.equal(openai.received.length + anthropic.received.length, before);
});
