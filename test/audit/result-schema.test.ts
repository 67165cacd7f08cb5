import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from './support.ts';
import { OpenAiStandIn } from './llm/stand-ins.ts';

/**
 * The JSON a developer consumes, held to what the service publishes: real results (a crawl with a failed page,
 * a frame, items needing review, elements past the cap, an LLM review) validated against the response schemas
 * of its own /openapi.json, with no property the schema does not name, and every field docs/audit.md lists.
 */

const OPENAI_KEY = 'sk-proj-schema-test-000111';
let h: AuditHarness;
let site: TestSite;
let openai: OpenAiStandIn;
let doc: any;
let job: any;

before(async () => {
  openai = await new OpenAiStandIn(OPENAI_KEY).start();
  h = await startAudit(
    {
      AUDIT_MAX_ELEMENTS_PER_RULE: '2',
      AUDIT_OPENAI_API_KEY: OPENAI_KEY,
      AUDIT_OPENAI_BASE_URL: `${openai.url}/v1`,
      AUDIT_LLM_TIMEOUT_MS: '5000',
    },
    'auditschema',
  );
  const home = page(
    'Home',
    `<p><a href="/framed">Framed</a> <a href="/gone">Gone</a> <a href="/more">click here</a> <a href="/index.html">Home</a></p>
<img src="data:," id="a"><img src="data:," id="b"><img src="data:," id="c"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="IMG_1.jpg">
<div style="background:linear-gradient(#000,#fff);color:#888">Over a gradient</div>`,
  );
  site = await serveSite({
    '/': home,
    // The same document under a second URL: merged into / (pages[].mergedUrls).
    '/index.html': home,
    '/framed': page('Framed', '<iframe src="/inner" title="Inner"></iframe>'),
    // Not linked from the crawl: text in a one-line box that hides its overflow, cut off at 200 % (ACT 59br37).
    '/deep': page(
      'Deep',
      '<div style="width:200px;height:20px;line-height:20px;font-size:16px;overflow:hidden">Cut off when larger</div><h2></h2>',
    ),
    '/inner': page('Inner', '<input type="text" name="q">'),
    '/more': page('More', '<p>More.</p>'),
  });
  const res = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/`,
    config: { crawl: { depth: 1, maxPages: 5 }, llm: { enabled: true, provider: 'openai' } },
  });
  assert.equal(res.statusCode, 202, res.body);
  job = await waitForJob(h, res.json().id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
after(async () => {
  await site?.close();
  await h?.close();
  await openai?.close();
});

/** The schema as published, with every object closed: a property the document does not name fails too. */
function closed(schema: any): any {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: any = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v),
    ]),
  );
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined)
    copy.additionalProperties = false;
  return copy;
}

function validator(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its default export is the plugin function.
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv.compile(closed(schema));
}

const jsonSchema = (path: string, method: string) =>
  doc.paths[path][method].responses['200'].content['application/json'].schema;

test('the result is rich enough to exercise every part of its schema', () => {
  const r = job.result;
  assert.ok(
    r.pages.some((p: any) => p.status === 'failed' && p.httpStatus === 404),
    'a failed page',
  );
  assert.ok(
    r.findings.some((f: any) => f.selector.includes(' >>> ')),
    'a finding inside a frame',
  );
  assert.ok(r.needsReview.length > 0, 'items needing review');
  assert.ok(r.omitted.length > 0, 'elements past the cap');
  assert.ok(
    r.pages.some((p: any) => p.mergedUrls.length > 0),
    'a URL merged into a page',
  );
  assert.equal(r.llm?.status, 'completed', r.llm?.error);
  assert.ok(r.llm.findings.length > 0, 'LLM judgements');
});

test('GET /api/v1/audits/{id}: the job and its result match the published schema, and nothing more', () => {
  const validate = validator(jsonSchema('/api/v1/audits/{id}', 'get'));
  assert.ok(validate(job), JSON.stringify(validate.errors, null, 1));
});

test('GET /api/v1/audits/{id}/report: the JSON report is the result and matches its published schema, and nothing more', async () => {
  const res = await h.call('GET', `/api/v1/audits/${job.id}/report`);
  assert.equal(res.statusCode, 200);
  const validate = validator(jsonSchema('/api/v1/audits/{id}/report', 'get'));
  assert.ok(validate(res.json()), JSON.stringify(validate.errors, null, 1));
  assert.deepEqual(res.json(), job.result);
});

test('POST /audit: the synchronous result matches its published schema (llm null when not asked for)', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/framed` });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().llm, null);
  const validate = validator(jsonSchema('/audit', 'post'));
  assert.ok(validate(res.json()), JSON.stringify(validate.errors, null, 1));
});

test('POST /audit: a deep audit with best practices matches the published schema: ACT ids and best practices', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/deep`, deep: true, bestPractices: true });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.ok(
    r.findings.some((f: any) => f.actRules),
    'a deep finding with its ACT rules',
  );
  assert.ok(r.bestPractices.passed.length > 0, 'best-practice rules');
  assert.equal(r.config.deep, true);
  const validate = validator(jsonSchema('/audit', 'post'));
  assert.ok(validate(r), JSON.stringify(validate.errors, null, 1));
});

test('a schema that closes its objects really refuses what it does not name, and wrong types', () => {
  const validate = validator(jsonSchema('/api/v1/audits/{id}/report', 'get'));
  const r = structuredClone(job.result);
  r.findings[0].colour = 'red';
  assert.equal(validate(r), false);
  const s = structuredClone(job.result);
  s.wcagLevel = 'AAAA';
  s.llm.findings[0].confidence = 2;
  assert.equal(validate(s), false);
  const paths = new Set(validate.errors!.map((e) => e.instancePath));
  assert.ok(paths.has('/wcagLevel') && paths.has('/llm/findings/0/confidence'), [...paths].join(', '));
});

test('every result field docs/audit.md lists is required by the published schema', () => {
  const schema = jsonSchema('/api/v1/audits/{id}/report', 'get');
  const docs = readFileSync(new URL('../../docs/audit.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('## The result'), docs.indexOf('**Score.**'));
  const table = [...section.matchAll(/^\| ((?:`\w+`(?:, )?)+) \|/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!),
  );
  assert.ok(table.length >= 14, `the result table was found: ${table.join(', ')}`);
  // `omitted` is absent from results stored before the element cap existed; `ignoreRules` from audits without ignore rules.
  const optional = ['omitted', 'ignoreRules', 'bestPractices'];
  for (const field of table) {
    assert.ok(field in schema.properties, `${field} is in the schema`);
    if (!optional.includes(field)) assert.ok(schema.required.includes(field), `${field} is required`);
  }
  const findingText = section.slice(section.indexOf('A finding has'), section.indexOf('A **selector**'));
  const findingFields = [...findingText.matchAll(/`([a-z]+(?:[A-Z][a-z]+)*)`/g)].map((m) => m[1]!);
  const finding = schema.properties.findings.items;
  assert.ok(findingFields.length >= 14, findingFields.join(', '));
  for (const field of findingFields)
    assert.ok(finding.required.includes(field), `finding.${field} is required by the schema`);
});
