import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * A project's tracking plan (src/ingest/tracking-plan, docs/ingest.md "Tracking plan"): off by default; `report`
 * stores every event and counts those breaking the plan; `enforce` rejects them one by one in the 202 answer, the
 * rest of the batch stored. A saved plan holds from the next batch (the cache is told, not waited out: the key cache,
 * which the plans' follows, is kept long here).
 */
let h: IngestHarness;

const post = (key: string, events: unknown[], raw?: string) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: raw ?? JSON.stringify({ events }),
  });
const putPlan = (projectId: string, plan: unknown) =>
  h.admin('PUT', `/api/v1/projects/${projectId}/tracking-plan`, plan);
const storedIds = async (projectId: string) =>
  (
    await h.sql.query<{ event_id: string }>('SELECT event_id FROM ingest.events WHERE project_id = $1 ORDER BY 1', [
      projectId,
    ])
  ).rows.map((r) => r.event_id);
const violations = async (projectId: string) => {
  const res = await h.admin('GET', `/api/v1/projects/${projectId}/tracking-plan/violations`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

const PLAN = {
  mode: 'enforce',
  allow_unplanned_events: false,
  events: [
    {
      name: 'signed-up',
      properties: [
        { name: 'metadata.plan', type: 'string', required: true },
        { name: 'coupon', type: 'string' },
      ],
    },
    {
      name: 'ui.click',
      allow_unplanned_properties: false,
      properties: [{ name: 'metadata.plan', type: 'string' }],
    },
  ],
};

/** One event of each kind: planned and right, then one breaking each rule. */
function batch(projectId: string, prefix: string) {
  const custom = (id: string, extra: Record<string, unknown>) =>
    makeEvent(projectId, { event_id: `${prefix}-${id}`, 'event.type': 'custom', 'event.name': 'signed-up', ...extra });
  return [
    custom('good', { coupon: 'SPRING' }),
    custom('missing', { metadata: { other: 1 } }),
    custom('type', { metadata: { plan: 3 } }),
    makeEvent(projectId, { event_id: `${prefix}-unplanned`, 'event.type': 'page.view' }),
    makeEvent(projectId, { event_id: `${prefix}-extra`, metadata: { plan: 'pro', referrer: 'ad' } }),
    makeEvent(projectId, { event_id: `${prefix}-click` }),
  ];
}

before(async () => {
  h = await startIngest({ INGEST_KEY_CACHE_SECONDS: '300' }, 'ingesttrackingplan');
});
after(async () => h?.close());

test('without a plan every valid event is stored, and the plan reads as off', async () => {
  const p = await h.project();
  const got = await h.admin('GET', `/api/v1/projects/${p.projectId}/tracking-plan`);
  assert.equal(got.statusCode, 200, got.body);
  assert.deepEqual(got.json(), { project_id: p.projectId, mode: 'off', allow_unplanned_events: true, events: [] });
  const res = await post(p.key, batch(p.projectId, 'a'));
  assert.deepEqual(res.json(), { accepted: 6, rejected: 0, errors: [] });
  assert.equal((await storedIds(p.projectId)).length, 6);
  assert.equal((await violations(p.projectId)).total, 0);
});

test('enforced, each event breaking the plan is rejected with its reason and the rest of the batch is stored', async () => {
  const p = await h.project();
  const saved = await putPlan(p.projectId, PLAN);
  assert.equal(saved.statusCode, 200, saved.body);
  assert.equal(saved.json().events[0].allow_unplanned_properties, true, 'defaults filled in');
  // The same batch as the SDK writes it (read from its bytes when there is no plan) and pretty-printed.
  for (const [prefix, raw] of [
    ['b', undefined],
    ['c', JSON.stringify({ events: batch(p.projectId, 'c') }, null, 2)],
  ] as const) {
    const res = await post(p.key, batch(p.projectId, prefix), raw);
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), {
      accepted: 2,
      rejected: 4,
      errors: [
        { index: 1, error: 'metadata.plan: required by the tracking plan for signed-up' },
        { index: 2, error: 'metadata.plan: must be a string (tracking plan for signed-up)' },
        { index: 3, error: 'event.type: page.view is not in the tracking plan' },
        { index: 4, error: 'metadata.referrer: not in the tracking plan for ui.click' },
      ],
    });
  }
  assert.deepEqual(await storedIds(p.projectId), ['b-click', 'b-good', 'c-click', 'c-good']);
  const counted = await violations(p.projectId);
  assert.equal(counted.total, 8);
  assert.deepEqual(
    counted.items
      .map((i: { event: string; reason: string; count: number }) => `${i.event} ${i.reason} ${i.count}`)
      .sort(),
    [
      'page.view unplanned_event 2',
      'signed-up missing_property 2',
      'signed-up property_type 2',
      'ui.click unplanned_property 2',
    ],
  );
  // Invalid events are rejected as before, and an event the plan rejected is not the first of its event_id.
  const res = await post(p.key, [
    makeEvent(p.projectId, { event_id: 'd-1', 'event.type': 'page.view' }),
    makeEvent(p.projectId, { event_id: 'd-1' }),
    makeEvent(p.projectId, { event_id: 'd-2', 'event.type': 'nope' }),
  ]);
  assert.equal(res.json().accepted, 1);
  assert.deepEqual(
    res.json().errors.map((e: { index: number }) => e.index),
    [0, 2],
  );
  assert.match(res.json().errors[1].error, /^event\.type: must be one of/);
});

test('in report mode every event is stored and those breaking the plan are counted', async () => {
  const p = await h.project();
  assert.equal((await putPlan(p.projectId, { ...PLAN, mode: 'report' })).statusCode, 200);
  const res = await post(p.key, batch(p.projectId, 'r'));
  assert.deepEqual(res.json(), { accepted: 6, rejected: 0, errors: [] });
  assert.equal((await storedIds(p.projectId)).length, 6);
  const counted = await violations(p.projectId);
  assert.equal(counted.total, 4);
  assert.equal(new Date(counted.to).getTime() - new Date(counted.from).getTime(), 24 * 3_600_000);
});

test('a changed plan holds from the next batch', async () => {
  const p = await h.project();
  const unplanned = (id: string) => [makeEvent(p.projectId, { event_id: id, 'event.type': 'page.view' })];
  assert.equal((await post(p.key, unplanned('x-1'))).json().accepted, 1);
  await putPlan(p.projectId, PLAN);
  assert.equal((await post(p.key, unplanned('x-2'))).json().rejected, 1);
  await putPlan(p.projectId, { ...PLAN, allow_unplanned_events: true });
  assert.equal((await post(p.key, unplanned('x-3'))).json().accepted, 1);
  await putPlan(p.projectId, { ...PLAN, mode: 'off' });
  assert.equal((await post(p.key, batch(p.projectId, 'x'))).json().accepted, 6);
  assert.equal((await h.admin('GET', `/api/v1/projects/${p.projectId}/tracking-plan`)).json().mode, 'off');
});

test('a bad plan is refused with 400 naming the problem, and nothing changes', async () => {
  const p = await h.project();
  const event = (extra: Record<string, unknown>) => ({ ...PLAN, events: [{ name: 'a', properties: [], ...extra }] });
  const bad: [unknown, RegExp][] = [
    [{ ...PLAN, colour: 'red' }, /colour|additional/i],
    [{ ...PLAN, mode: 'strict' }, /mode/],
    [{ events: [] }, /mode/],
    [event({ owner: 'me' }), /owner|additional/i],
    [event({ properties: [{ name: 'x', type: 'date' }] }), /type/],
    [event({ properties: [{ name: 'x', type: 'string', optional: true }] }), /optional|additional/i],
    [event({ name: 'a'.repeat(257) }), /name/],
    [event({ name: '  ' }), /events\[0\]\.name: must not be blank/],
    [event({ name: 'a\u0000b' }), /NUL/],
    [{ ...PLAN, events: [PLAN.events[0], PLAN.events[0]] }, /events\[1\]\.name: signed-up is planned twice/],
    [event({ properties: [{ name: 'metadata.', type: 'string' }] }), /metadata\. must be followed/],
    [
      event({
        properties: [
          { name: 'x', type: 'string' },
          { name: 'x', type: 'number' },
        ],
      }),
      /properties\[1\]\.name: x is planned twice/,
    ],
    [{ ...PLAN, events: Array.from({ length: 501 }, (_, i) => ({ name: `e${i}` })) }, /events/],
    [event({ properties: Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, type: 'string' })) }), /properties/],
  ];
  for (const [body, message] of bad) {
    const res = await putPlan(p.projectId, body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`);
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, message);
  }
  assert.equal((await h.admin('GET', `/api/v1/projects/${p.projectId}/tracking-plan`)).json().mode, 'off');
  assert.equal((await putPlan('no-such-project', PLAN)).statusCode, 404);
  assert.equal((await h.admin('GET', '/api/v1/projects/no-such-project/tracking-plan/violations')).statusCode, 404);
  assert.equal(
    (await h.admin('GET', `/api/v1/projects/${p.projectId}/tracking-plan/violations?hours=0`)).statusCode,
    400,
  );
});

test('only an admin reads or changes a plan', async () => {
  const p = await h.project();
  for (const [method, url] of [
    ['GET', `/api/v1/projects/${p.projectId}/tracking-plan`],
    ['PUT', `/api/v1/projects/${p.projectId}/tracking-plan`],
    ['GET', `/api/v1/projects/${p.projectId}/tracking-plan/violations`],
  ] as const) {
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }, { 'x-svc-api-key': p.key }]) {
      const res = await h.app.inject({ method, url, headers, ...(method === 'PUT' ? { payload: PLAN } : {}) });
      assert.equal(res.statusCode, 401, `${method} ${url} ${JSON.stringify(headers)}`);
    }
  }
  assert.equal((await h.admin('GET', `/api/v1/projects/${p.projectId}/tracking-plan`)).json().mode, 'off');
});
