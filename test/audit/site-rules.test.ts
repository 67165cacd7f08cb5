import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRun, scheduleRule } from '../../src/audit/schedules/cron.ts';
import { regression } from '../../src/audit/notify/decide.ts';
import type { Finding } from '../../src/audit/result/types.ts';

/** The schedules' slots and the notices' decision, without a database. */

test('a daily slot keeps its local time across a daylight-saving change; a missed slot is the next one after now', () => {
  const rule = scheduleRule({ kind: 'daily', time: '03:30', timeZone: 'Europe/Paris' });
  // Paris moves from UTC+1 to UTC+2 on 2026-03-29.
  assert.equal(nextRun(rule, new Date('2026-03-28T12:00:00Z')).toISOString(), '2026-03-29T01:30:00.000Z');
  assert.equal(nextRun(rule, new Date('2026-03-27T12:00:00Z')).toISOString(), '2026-03-28T02:30:00.000Z');
  // Three days late, the next slot is tomorrow's, not the three missed ones.
  assert.equal(nextRun(rule, new Date('2026-06-10T12:00:00Z')).toISOString(), '2026-06-11T01:30:00.000Z');
});

test('weekly is a day and a time; cron is five fields in its zone', () => {
  const weekly = scheduleRule({ kind: 'weekly', time: '09:00', weekday: 5, timeZone: 'America/New_York' });
  assert.equal(weekly.cron, '0 9 * * 5');
  assert.equal(nextRun(weekly, new Date('2026-11-23T00:00:00Z')).toISOString(), '2026-11-27T14:00:00.000Z');
  const cron = scheduleRule({ kind: 'cron', cron: '15 6 1 * *', timeZone: 'Asia/Tokyo' });
  assert.equal(nextRun(cron, new Date('2026-11-23T00:00:00Z')).toISOString(), '2026-11-30T21:15:00.000Z');
  assert.throws(() => scheduleRule({ kind: 'cron', cron: '*/5 * * * *', timeZone: 'UTC' }), /every 15 minutes/);
  assert.throws(() => scheduleRule({ kind: 'weekly', cron: '0 0 * * *', timeZone: 'UTC' }), /cron is for kind "cron"/);
});

const finding = (ruleId: string, impact: Finding['impact'], selector: string, extra: Partial<Finding> = {}): Finding =>
  ({
    id: `0-${ruleId}-${selector}`,
    ruleId,
    impact,
    selector,
    pageUrl: 'https://a.example/page',
    summary: `${ruleId} summary`,
    help: 'https://dequeuniversity.com/rules/axe',
    ...extra,
  }) as Finding;

const all = { onScoreDrop: true, onNewFailures: true };

test('a notice for a lower score, or for serious and critical failures the previous run did not have', () => {
  const before = { score: 90, findings: [finding('image-alt', 'critical', 'img.a')] };
  // Same failures, the page moved host (a preview): nothing new, the same score.
  const same = {
    score: 90,
    findings: [finding('image-alt', 'critical', 'img.a', { pageUrl: 'https://preview.example/page' })],
  };
  assert.equal(regression(same, before, all), null);
  // A moderate failure and an ignored critical one are not news; the score still fell.
  const worse = {
    score: 80,
    findings: [
      ...before.findings,
      finding('region', 'moderate', 'div'),
      finding('label', 'critical', 'input', { ignored: { rule: 0, reason: 'known', expires: '2099-01-01' } }),
    ],
  };
  assert.deepEqual(regression(worse, before, all), {
    score: 80,
    previousScore: 90,
    scoreDrop: 10,
    newFailures: [],
    newFailureCount: 0,
  });
  assert.equal(regression(worse, before, { onScoreDrop: false, onNewFailures: true }), null);
  const fresh = { score: 95, findings: [finding('button-name', 'serious', 'button.go'), ...before.findings] };
  const found = regression(fresh, before, all);
  assert.equal(found?.scoreDrop, 0);
  assert.deepEqual(
    found?.newFailures.map((f) => [f.ruleId, f.impact, f.selector]),
    [['button-name', 'serious', 'button.go']],
  );
  assert.equal(regression(fresh, before, { onScoreDrop: true, onNewFailures: false }), null);
});

test('a notice lists at most 20 new failures and counts them all', () => {
  const many = Array.from({ length: 25 }, (_, i) => finding('link-name', 'serious', `a.n${i}`));
  const found = regression({ score: 50, findings: many }, { score: 50, findings: [] }, all);
  assert.equal(found?.newFailures.length, 20);
  assert.equal(found?.newFailureCount, 25);
});
