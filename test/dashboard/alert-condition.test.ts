import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  nextState,
  reminderOf,
  type Before,
  type Condition,
  type Outcome,
} from '../../src/dashboard/alerts/condition.ts';
import { ruleValue } from '../../src/dashboard/alerts/run-rule.ts';

const at = (min: number) => new Date(Date.UTC(2026, 0, 1, 0, min));
const above10: Condition = { op: 'above', threshold: 10, thresholdHigh: null };
const v = (value: number): Outcome => ({ kind: 'value', value, rows: 1 });
const from = (state: Before['state'], pendingMinutes = 0, pendingSince: Date | null = null): Before => ({
  state,
  pendingMinutes,
  pendingSince,
});

describe('the alert state machine', () => {
  test('a breach waits out the pending period, then fires once and stays firing silently', () => {
    const p = nextState(from('ok', 5), above10, v(11), at(0));
    assert.deepEqual([p.state, p.notify, p.pendingSince], ['pending', null, at(0)]);
    const still = nextState(from('pending', 5, at(0)), above10, v(12), at(4));
    assert.deepEqual([still.state, still.notify, still.pendingSince], ['pending', null, at(0)]);
    const fired = nextState(from('pending', 5, at(0)), above10, v(12), at(5));
    assert.deepEqual([fired.state, fired.notify], ['firing', 'firing']);
    assert.equal(nextState(from('firing', 5), above10, v(13), at(6)).notify, null);
  });

  test('pending that recovers is silent; firing, nodata and error that recover are resolved', () => {
    assert.deepEqual(pick(nextState(from('pending', 5, at(0)), above10, v(1), at(1))), ['ok', null]);
    for (const s of ['firing', 'nodata', 'error'] as const)
      assert.deepEqual(pick(nextState(from(s), above10, v(1), at(1))), ['ok', 'resolved']);
    assert.deepEqual(pick(nextState(from('ok'), above10, v(1), at(1))), ['ok', null]);
  });

  test('no data and errors skip the pending period and notify once', () => {
    assert.deepEqual(pick(nextState(from('ok', 60), above10, { kind: 'nodata', rows: 0 }, at(0))), [
      'nodata',
      'nodata',
    ]);
    assert.deepEqual(pick(nextState(from('nodata', 60), above10, { kind: 'nodata', rows: 0 }, at(1))), [
      'nodata',
      null,
    ]);
    const e = nextState(from('firing', 60), above10, { kind: 'error', message: 'boom' }, at(0));
    assert.deepEqual(pick(e), ['error', 'error']);
    assert.match(e.reason, /boom/);
  });

  test('outside a range is strict at both ends; no_data fires on no rows', () => {
    const range: Condition = { op: 'outside', threshold: 1, thresholdHigh: 5 };
    assert.equal(nextState(from('ok'), range, v(1), at(0)).state, 'ok');
    assert.equal(nextState(from('ok'), range, v(5), at(0)).state, 'ok');
    assert.equal(nextState(from('ok'), range, v(0.5), at(0)).state, 'firing');
    assert.equal(nextState(from('ok'), range, v(6), at(0)).state, 'firing');
    const empty: Condition = { op: 'no_data', threshold: null, thresholdHigh: null };
    assert.deepEqual(pick(nextState(from('ok'), empty, { kind: 'nodata', rows: 0 }, at(0))), ['firing', 'firing']);
    assert.deepEqual(pick(nextState(from('firing'), empty, v(3), at(0))), ['ok', 'resolved']);
  });

  test('a rule that stays firing, nodata or error may be reminded of; pending, ok and changes never', () => {
    const stays = (state: Before['state'], outcome: Outcome) =>
      reminderOf(state, nextState(from(state), above10, outcome, at(9)));
    assert.equal(stays('firing', v(13)), 'firing');
    assert.equal(stays('nodata', { kind: 'nodata', rows: 0 }), 'nodata');
    assert.equal(stays('error', { kind: 'error', message: 'boom' }), 'error');
    assert.equal(stays('ok', v(1)), null);
    assert.equal(reminderOf('pending', nextState(from('pending', 60, at(0)), above10, v(13), at(9))), null);
    assert.equal(stays('firing', v(1)), null, 'resolved is a change, sent as such');
    assert.equal(stays('ok', v(13)), null, 'a new firing is a change');
    assert.equal(stays('firing', { kind: 'error', message: 'boom' }), null);
  });

  test("a query's value: the named column, else the first numeric one; null is no data; text is an error", () => {
    assert.deepEqual(ruleValue([{ n: 'a', c: '12.5' }], ['n', 'c'], null), { kind: 'value', value: 12.5, rows: 1 });
    assert.deepEqual(ruleValue([{ a: 1, b: 2 }], ['a', 'b'], 'b'), { kind: 'value', value: 2, rows: 1 });
    assert.deepEqual(ruleValue([], ['a'], null), { kind: 'nodata', rows: 0 });
    assert.deepEqual(ruleValue([{ a: null }], ['a'], null), { kind: 'nodata', rows: 1 });
    assert.equal(ruleValue([{ a: 1 }], ['a'], 'zz').kind, 'error');
    assert.equal(ruleValue([{ a: 'text' }], ['a'], 'a').kind, 'error');
  });
});

const pick = (t: { state: string; notify: string | null }) => [t.state, t.notify];
