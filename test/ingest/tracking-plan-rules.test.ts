import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePlan, type TrackingPlan } from '../../src/ingest/tracking-plan/plan.ts';
import { makeEvent } from './helpers.ts';

/** The rules of a tracking plan on single events (tracking-plan/plan.ts), without a database. */
const plan = (events: TrackingPlan['events'], allow = true) =>
  compilePlan({ mode: 'enforce', allow_unplanned_events: allow, events })!;
const errorOf = (p: ReturnType<typeof plan>, event: Record<string, unknown>) => p.check(event)?.error;

test('off compiles to nothing: no check at all', () => {
  assert.equal(compilePlan({ mode: 'off', allow_unplanned_events: false, events: [] }), undefined);
});

test('every JSON type is told apart, null being of none', () => {
  const p = plan([
    {
      name: 'ui.click',
      allow_unplanned_properties: true,
      properties: (['string', 'number', 'boolean', 'object', 'array'] as const).map((type) => ({
        name: `metadata.${type}`,
        type,
        required: false,
      })),
    },
  ]);
  const good = { string: 's', number: 1.5, boolean: false, object: {}, array: [] };
  assert.equal(errorOf(p, makeEvent('p', { metadata: good })), undefined);
  for (const [type, wrong] of [
    ['string', 1],
    ['number', '1'],
    ['boolean', 0],
    ['object', []],
    ['array', {}],
    ['object', null],
  ] as const) {
    assert.match(
      String(errorOf(p, makeEvent('p', { metadata: { ...good, [type]: wrong } }))),
      new RegExp(`^metadata\\.${type}: must be an? ${type} \\(tracking plan for ui\\.click\\)$`),
      `${type} ${JSON.stringify(wrong)}`,
    );
  }
});

test("a custom event goes by its event.name, or by custom without one; the contract's fields are never unplanned", () => {
  const strict = { allow_unplanned_properties: false, properties: [] };
  const p = plan(
    [
      { name: 'signed-up', ...strict },
      { name: 'custom', ...strict },
      {
        name: 'page.view',
        allow_unplanned_properties: false,
        properties: [{ name: 'metadata', type: 'object', required: false }],
      },
    ],
    false,
  );
  const bare = (fields: Record<string, unknown>) => {
    const e = makeEvent('p', fields);
    delete e.metadata;
    return e;
  };
  assert.equal(errorOf(p, bare({ 'event.type': 'custom', 'event.name': 'signed-up', 'user.id': 'a' })), undefined);
  assert.equal(errorOf(p, bare({ 'event.type': 'custom' })), undefined);
  assert.equal(
    errorOf(p, bare({ 'event.type': 'custom', 'event.name': 'bought' })),
    'event.name: bought is not in the tracking plan',
  );
  assert.equal(
    errorOf(p, bare({ 'event.type': 'custom', 'event.name': 'signed-up', coupon: 'x' })),
    'coupon: not in the tracking plan for signed-up',
  );
  // metadata planned whole: its keys are not looked at one by one.
  assert.equal(errorOf(p, makeEvent('p', { 'event.type': 'page.view', metadata: { any: 1 } })), undefined);
});
