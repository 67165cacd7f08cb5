import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditCommand } from '../../src/audit/cli.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { startAudit, type AuditHarness } from './support.ts';

/** Every route refuses what it cannot take with 400 (or 401/404/405/415) and a message naming the problem; none of these reaches the browser. */

let h: AuditHarness;

before(async () => {
  // No worker: nothing here reaches the browser, the jobs created stay pending.
  h = await startAudit({ AUDIT_MAX_DEPTH: '3', AUDIT_MAX_PAGES: '10', AUDIT_CONCURRENCY: '0' }, 'auditbad');
});

after(async () => {
  await h?.close();
});

const URL_OK = 'http://127.0.0.1:9/';

const badBodies: Array<[string, unknown, RegExp]> = [
  ['no body', undefined, /body/i],
  ['an array', [URL_OK], /body/],
  ['no url', { level: 'AA' }, /url/],
  ['url not a string', { url: 42 }, /url/],
  ['url empty', { url: '' }, /url/],
  ['url not absolute', { url: 'example.com/page' }, /url must be an absolute http or https URL/],
  [
    'url port out of range',
    { url: 'https://example.com:65536/' },
    /^url has the port 65536, out of range: a port is at most 65535$/,
  ],
  [
    'url port out of range, IPv6 host',
    { url: 'http://[2001:db8::1]:700000/x' },
    /^url has the port 700000, out of range: a port is at most 65535$/,
  ],
  ['url too long', { url: `http://example.com/${'a'.repeat(2100)}` }, /url/],
  ['an unknown property', { url: URL_OK, wcagLevel: 'AA' }, /unknown property "wcagLevel"/],
];

const legacyOnly: Array<[string, unknown, RegExp]> = [
  ['level unknown', { url: URL_OK, level: 'AAAA' }, /level/],
  ['version unknown', { url: URL_OK, version: '3.0' }, /version/],
  // Bodies are never coerced: a type other than the schema's is refused, not converted.
  ['version a string not listed', { url: URL_OK, version: '2' }, /version/],
  ['version a number not listed', { url: URL_OK, version: 3 }, /version/],
  ['version a boolean', { url: URL_OK, version: true }, /version/],
  ['level a number', { url: URL_OK, level: 1 }, /level/],
  ['crawl.depth a string', { url: URL_OK, crawl: { enabled: true, depth: '2' } }, /depth/],
  ['crawl.enabled a string', { url: URL_OK, crawl: { enabled: 'true' } }, /enabled/],
  ['crawl.enabled an array of one', { url: URL_OK, crawl: { enabled: [true] } }, /enabled/],
  ['crawl not an object', { url: URL_OK, crawl: true }, /crawl/],
  ['crawl.depth negative', { url: URL_OK, crawl: { enabled: true, depth: -1 } }, /depth/],
  ['crawl.depth fractional', { url: URL_OK, crawl: { enabled: true, depth: 1.5 } }, /depth/],
  ['crawl.maxPages zero', { url: URL_OK, crawl: { enabled: true, maxPages: 0 } }, /maxPages/],
  [
    'crawl.depth over the ceiling',
    { url: URL_OK, crawl: { enabled: true, depth: 4 } },
    /crawl\.depth must be at most 3/,
  ],
  [
    'crawl.maxPages over the ceiling',
    { url: URL_OK, crawl: { enabled: true, maxPages: 11 } },
    /crawl\.maxPages must be at most 10/,
  ],
  ['crawl unknown property', { url: URL_OK, crawl: { enabled: true, pages: 3 } }, /unknown property "pages"/],
  ['llm provider unknown', { url: URL_OK, llm: { enabled: true, provider: 'gemini' } }, /provider/],
  ['llm model with spaces', { url: URL_OK, llm: { enabled: true, model: 'a b' } }, /model/],
  ['llm enabled not boolean', { url: URL_OK, llm: { enabled: 'yes' } }, /enabled/],
];

test('POST /audit: every malformed body is 400 with a message naming the field', async () => {
  for (const [name, body, message] of [...badBodies, ...legacyOnly]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/audit',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      payload: body === undefined ? '' : JSON.stringify(body),
    });
    assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
    assert.match(res.json().error.message, message, name);
    assert.equal(typeof res.json().error.code, 'string');
  }
});

test('POST /api/v1/audits: every malformed body is 400 with a message naming the field', async () => {
  const asJob = legacyOnly.map(([name, body, message]) => {
    const { url, ...config } = body as Record<string, unknown>;
    return [name, { url, config }, message] as [string, unknown, RegExp];
  });
  for (const [name, body, message] of [
    ...badBodies,
    ...asJob,
    ['config not an object', { url: URL_OK, config: 'AA' }, /config/] as [string, unknown, RegExp],
  ]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/audits',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      payload: body === undefined ? '' : JSON.stringify(body),
    });
    assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
    assert.match(res.json().error.message, message, name);
  }
  // Read as the caller can: the caller's list of audits is still empty.
  assert.deepEqual((await h.call('GET', '/api/v1/audits')).json().items, [], 'no bad request stored a job');
});

test('a value outside a list of allowed values is answered with that list, once', async () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/audit', { url: URL_OK, level: 'AAAA' }, 'body/level must be one of "A", "AA", "AAA" (any case)'],
    [
      'POST',
      '/api/v1/audits',
      { url: URL_OK, config: { level: 2 } },
      'body/config/level must be one of "A", "AA", "AAA" (any case)',
    ],
    [
      'POST',
      '/api/v1/audits',
      { url: URL_OK, config: { version: '3.0' } },
      'body/config/version must be one of "2.0", "2.1", "2.2", 2, 2.1, 2.2',
    ],
    [
      'POST',
      '/audit',
      { url: URL_OK, llm: { enabled: true, provider: 'gemini' } },
      'body/llm/provider must be one of "openai", "anthropic"',
    ],
    [
      'GET',
      '/api/v1/audits?status=done',
      undefined,
      'querystring/status must be one of "pending", "running", "completed", "failed", "cancelled"',
    ],
    ['GET', '/api/v1/audits/x/report?format=pdf', undefined, 'querystring/format must be one of "json", "html"'],
    ['GET', '/api/v1/audits/x/openacr?format=xml', undefined, 'querystring/format must be one of "yaml", "json"'],
  ];
  for (const [method, url, body, message] of cases) {
    const res = await h.call(method as 'GET' | 'POST', url, body);
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(res.json().error.message, message, url);
  }
});

test("an unknown property is named with what the caller meant: the request's name for the result's, the right place, the right case", async () => {
  const cases: Array<[string, unknown, string]> = [
    [
      '/audit',
      { url: URL_OK, wcagLevel: 'AA' },
      'body has an unknown property "wcagLevel"; did you mean "level" (POST /audit) or "config.level" (POST /api/v1/audits)?',
    ],
    [
      '/api/v1/audits',
      { url: URL_OK, config: { wcagLevel: 'AA' } },
      'body/config has an unknown property "wcagLevel"; did you mean "level"?',
    ],
    [
      '/api/v1/audits',
      { url: URL_OK, config: { wcagVersion: '2.1' } },
      'body/config has an unknown property "wcagVersion"; did you mean "version"?',
    ],
    [
      '/api/v1/audits',
      { url: URL_OK, level: 'AA' },
      'body has an unknown property "level"; a job\'s options go inside "config": {"url": …, "config": {"level": …}}',
    ],
    [
      '/audit',
      { url: URL_OK, config: { level: 'AA' } },
      'body has an unknown property "config"; POST /audit takes level, version, crawl, llm, session and ignore at the top level (config is the wrapper of POST /api/v1/audits)',
    ],
    [
      '/audit',
      { url: URL_OK, crawl: { max_pages: 3 } },
      'body/crawl has an unknown property "max_pages"; did you mean "maxPages"?',
    ],
    [
      '/api/v1/audits',
      { url: URL_OK, config: { crawl: { maxpages: 3 } } },
      'body/config/crawl has an unknown property "maxpages"; did you mean "maxPages"?',
    ],
    [
      '/audit',
      { url: URL_OK, standard: 'WCAG2AA' },
      'body has an unknown property "standard"; did you mean "level" (POST /audit) or "config.level" (POST /api/v1/audits)?',
    ],
    [
      '/audit',
      { url: URL_OK, llm: { enabled: true, temperature: 0 } },
      'body/llm has an unknown property "temperature"',
    ],
  ];
  for (const [url, body, message] of cases) {
    const res = await h.call('POST', url, body);
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(res.json().error.message, message);
  }
});

test('a crawl object turns crawling on unless it says enabled: false; an llm object must say enabled', async () => {
  const cases: Array<[unknown, boolean, boolean]> = [
    [{}, false, false],
    [{ crawl: { depth: 2, maxPages: 5 } }, true, false],
    [{ crawl: {} }, true, false],
    [{ crawl: { enabled: false, maxPages: 5 } }, false, false],
    [{ llm: { enabled: true, provider: 'openai' } }, false, true],
    [{ llm: { enabled: false, provider: 'openai' } }, false, false],
  ];
  for (const [config, crawl, llm] of cases) {
    const created = await h.call('POST', '/api/v1/audits', { url: URL_OK, config });
    assert.equal(created.statusCode, 202, created.body);
    const job = (await h.call('GET', `/api/v1/audits/${created.json().id}`)).json();
    assert.equal(job.config.crawl.enabled, crawl, JSON.stringify(config));
    assert.equal(job.config.llm.enabled, llm, JSON.stringify(config));
  }
  const limits = (
    await h.call(
      'GET',
      `/api/v1/audits/${(await h.call('POST', '/api/v1/audits', { url: URL_OK, config: { crawl: { depth: 1, maxPages: 5 } } })).json().id}`,
    )
  ).json();
  assert.deepEqual(limits.config.crawl, { enabled: true, depth: 1, maxPages: 5 });
  // Page content goes to a third party only when asked in as many words: neither taken as yes nor ignored.
  for (const llm of [{ provider: 'openai' }, {}]) {
    const refused = await h.call('POST', '/api/v1/audits', { url: URL_OK, config: { llm } });
    assert.equal(refused.statusCode, 400, JSON.stringify(llm));
    assert.match(refused.json().error.message, /^llm\.enabled is required with an llm object/);
  }
});

test('a version given as a JSON number (2.0, 2.1, 2.2) is read as the string', async () => {
  for (const [given, read] of [
    [2.0, '2.0'],
    [2.1, '2.1'],
    [2.2, '2.2'],
  ] as const) {
    const created = await h.call('POST', '/api/v1/audits', { url: URL_OK, config: { version: given } });
    assert.equal(created.statusCode, 202, created.body);
    const job = await h.call('GET', `/api/v1/audits/${created.json().id}`);
    assert.equal(job.json().config.wcagVersion, read);
  }
});

test('malformed JSON is 400, a non-JSON content type 415, an oversize body 413', async () => {
  for (const url of ['/audit', '/api/v1/audits']) {
    const broken = await h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      payload: '{"url": ',
    });
    assert.equal(broken.statusCode, 400, broken.body);
    assert.ok(broken.json().error.message.length > 0);
    const text = await h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'text/plain' },
      payload: 'url=x',
    });
    assert.equal(text.statusCode, 415);
    assert.match(text.json().error.message, /application\/json/);
    const big = await h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: URL_OK, pad: 'x'.repeat(100_000) }),
    });
    assert.equal(big.statusCode, 413);
  }
});

test('query strings and ids of the job routes are checked', async () => {
  const cases: Array<[string, number, RegExp]> = [
    ['/api/v1/audits?limit=0', 400, /limit/],
    ['/api/v1/audits?limit=501', 400, /limit/],
    ['/api/v1/audits?limit=ten', 400, /limit/],
    ['/api/v1/audits?status=done', 400, /status/],
    ['/api/v1/audits?cursor=bogus', 400, /cursor/],
    ['/api/v1/audits?sort=asc', 400, /unknown property "sort"/],
    ['/api/v1/audits/00000000-0000-0000-0000-000000000000', 404, /no audit/],
    ['/api/v1/audits/not-a-uuid', 404, /no audit/],
    ['/api/v1/audits/x/report?format=pdf', 400, /format/],
    ['/api/v1/audits/x/report', 404, /no audit/],
    ['/api/v1/audits/x/openacr?format=xml', 400, /format/],
    ['/api/v1/audits/x/openacr?author_email=nope', 400, /author_email/],
    ['/api/v1/audits/x/openacr?vendor=acme', 400, /unknown property "vendor"/],
    ['/api/v1/audits/x/openacr', 404, /no audit/],
  ];
  for (const [url, status, message] of cases) {
    const res = await h.call('GET', url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    assert.match(res.json().error.message, message, url);
  }
  const del = await h.call('DELETE', '/api/v1/audits/nope');
  assert.equal(del.statusCode, 404);
  const long = await h.call('GET', `/api/v1/audits/${'x'.repeat(200)}`);
  assert.equal(long.statusCode, 414, 'an id longer than any id is refused before routing');
  assert.ok(long.json().error.message);
});

test('an unknown catalog of a completed audit is 400 naming the known ones', async () => {
  const id = '11111111-1111-4111-8111-111111111111';
  const owner = `key:${(await h.sql.query("SELECT id FROM api_keys WHERE name = 'test'")).rows[0].id}`;
  const config = {
    wcagVersion: '2.2',
    wcagLevel: 'AA',
    crawl: { enabled: false, depth: 2, maxPages: 25 },
    llm: { enabled: false, provider: null, model: null },
    axeTags: ['wcag2a'],
  };
  const result = {
    url: 'https://example.com/',
    targetUrl: 'https://example.com/',
    wcagVersion: '2.2',
    wcagLevel: 'AA',
    score: 100,
    conformant: true,
    stats: {
      totalPages: 1,
      totalFindings: 0,
      critical: 0,
      serious: 0,
      moderate: 0,
      minor: 0,
      needsReview: 0,
      failedPages: 0,
    },
    findings: [],
    needsReview: [],
    pages: [],
    rules: [],
    llm: null,
    config,
    engine: { axeVersion: '4.14.1', browser: 'Chromium' },
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
  };
  await h.sql.query(
    "INSERT INTO jobs (id, owner, url, config, status, result, finished_at) VALUES ($1, $2, 'https://example.com/', $3, 'completed', $4, now())",
    [id, owner, JSON.stringify(config), JSON.stringify(result)],
  );
  const res = await h.call('GET', `/api/v1/audits/${id}/openacr?catalog=1.0-edition-wcag-9-508-en`);
  assert.equal(res.statusCode, 400);
  assert.match(res.json().error.message, /2\.5-edition-wcag-2\.2-508-en/);
});

test('/openapi.json names the statuses and headers the POST routes answer with', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const path of ['/audit', '/api/v1/audits']) {
    const responses = doc.paths[path].post.responses;
    for (const status of ['400', '401', '413', '415', '429'])
      assert.ok(responses[status], `POST ${path} documents ${status}`);
  }
  const created = doc.paths['/api/v1/audits'].post.responses['202'];
  assert.ok(created.headers?.location, 'the 202 documents its Location header');
  assert.deepEqual(Object.keys(created.content['application/json'].schema.properties).sort(), ['id', 'status']);
  // And the service answers so.
  const res = await h.call('POST', '/api/v1/audits', { url: URL_OK });
  assert.equal(res.statusCode, 202);
  assert.equal(res.headers.location, `/api/v1/audits/${res.json().id}`);
});

test("behind a proxy with a path prefix (AUDIT_PUBLIC_URL), the 202's Location leads to the job through the proxy", async () => {
  const proxied = await startAudit(
    { AUDIT_CONCURRENCY: '0', AUDIT_PUBLIC_URL: 'https://gw.example.test/audit/' },
    'auditbadpub',
  );
  try {
    const res = await proxied.call('POST', '/api/v1/audits', { url: URL_OK });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.headers.location, `https://gw.example.test/audit/api/v1/audits/${res.json().id}`);
  } finally {
    await proxied.close();
  }
});

test('wrong methods are 404 or 405, never 500', async () => {
  for (const [method, url] of [
    ['PUT', '/api/v1/audits'],
    ['PATCH', '/api/v1/audits/x'],
    ['GET', '/audit'],
    ['DELETE', '/api/v1/audits'],
  ] as const) {
    const res = await h.call(method, url);
    assert.ok(res.statusCode === 404 || res.statusCode === 405, `${method} ${url}: ${res.statusCode}`);
    assert.ok(res.json().error.message);
  }
});

test('credentials: missing, malformed, unknown and revoked keys are 401 with a challenge; health needs none', async () => {
  for (const [headers, message] of [
    [{}, /missing credentials/],
    [{ authorization: 'Basic abc' }, /malformed Authorization header/],
    [{ authorization: 'Bearer ak_unknown' }, /invalid or revoked API key/],
    [{ 'x-api-key': 'ak_unknown' }, /invalid or revoked API key/],
    [
      { authorization: 'Bearer some-access-token' },
      /access tokens are not accepted: this service has no AUDIT_IDENTITY_URL/,
    ],
  ] as Array<[Record<string, string>, RegExp]>) {
    for (const [method, url] of [
      ['POST', '/audit'],
      ['POST', '/api/v1/audits'],
      ['GET', '/api/v1/audits'],
      ['GET', '/api/v1/audits/x'],
      ['DELETE', '/api/v1/audits/x'],
      ['GET', '/api/v1/audits/x/report'],
      ['GET', '/api/v1/audits/x/openacr'],
    ] as const) {
      const res = await h.app.inject({
        method,
        url,
        headers,
        ...(method === 'POST' ? { payload: { url: URL_OK } } : {}),
      });
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.match(res.json().error.message, message);
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    }
  }
  const viaHeader = await h.app.inject({ method: 'GET', url: '/api/v1/audits', headers: { 'x-api-key': h.key } });
  assert.equal(viaHeader.statusCode, 200);

  for (const url of ['/health', '/api/v1/health', '/ready', '/openapi.json', '/metrics']) {
    const res = await h.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
  }
  assert.deepEqual(Object.keys((await h.app.inject({ method: 'GET', url: '/health' })).json()).sort(), [
    'status',
    'version',
  ]);
});

test('platform audit keys: create shows the key once and stores its hash; list never shows it; a revoked key stops working', async () => {
  const config = loadAuditConfig(h.env);
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  assert.equal(await auditCommand(['keys', 'create', '--name', 'ci'], config, io), 0);
  const key = out.find((l) => l.startsWith('ak_'))!;
  assert.match(key, /^ak_[A-Za-z0-9_-]{43}$/);
  assert.match(err.join('\n'), /cannot be shown again/);
  const keyId = /created key (key_\S+)/.exec(out[0]!)![1]!;
  const { rows } = await h.sql.query('SELECT key_hash FROM api_keys WHERE id = $1', [keyId]);
  assert.notEqual(rows[0].key_hash, key);
  assert.ok(
    !JSON.stringify((await h.sql.query('SELECT * FROM api_keys')).rows).includes(key),
    'the key is not stored in clear',
  );

  out.length = 0;
  assert.equal(await auditCommand(['keys', 'list'], config, io), 0);
  assert.ok(out.some((l) => l.startsWith(keyId) && l.includes('ci') && l.includes('active')));
  assert.ok(!out.join('\n').includes(key));

  assert.equal((await h.call('GET', '/api/v1/audits', undefined, key)).statusCode, 200);
  assert.equal(await auditCommand(['keys', 'revoke', keyId], config, io), 0);
  assert.equal((await h.call('GET', '/api/v1/audits', undefined, key)).statusCode, 401);
  assert.equal(await auditCommand(['keys', 'revoke', 'key_nope'], config, io), 1);
  assert.equal(await auditCommand(['keys', 'rotate'], config, io), 2);
  assert.equal(await auditCommand(['keys', 'create', 'extra'], config, io), 2);

  out.length = 0;
  assert.equal(await auditCommand(['keys', 'create', '--export'], config, io), 0);
  assert.match(
    out.join('\n'),
    /^export AUDIT_KEY_ID='key_[^']+'\nexport AUDIT_KEY='ak_[A-Za-z0-9_-]{43}'$/,
    'shell exports for scripts',
  );
});
